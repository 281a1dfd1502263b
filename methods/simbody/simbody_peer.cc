// Simbody 3.7 (Debian) as the peer engine for side-by-side comparisons: the same mechanism
// built as a Simbody multibody system in joint coordinates and integrated by Simbody's own
// integrators, with every accepted step mapped back to the problem's coordinates so the
// harness measures error, drift and timing exactly as for the suite's methods.
//
// Models exist for the planar pin-joint problems: planar_pendulum, physical_pendulum,
// stiff_pendulum (both forms) and double_pendulum; other problems are not_applicable.
// (A point mass on a ball joint, the spatial pendulum, has a singular rotational inertia
// in Simbody's joint coordinates.) Simbody's frame: the motion is in its X-Y plane with
// gravity along -Y; the mappings below rotate to each problem's axes.
//
// This translation unit is compiled with -UNDEBUG (docs/toolchain.md trap 1: Debian built Simbody
// without NDEBUG, and a header class changes layout with it).
#include "methods/simbody/simbody_peer.h"

#include <Simbody.h>

#include <cmath>
#include <functional>

namespace mbb {
namespace {

double Param(const Problem& p, const std::string& key, double fallback) {
  auto it = p.parameters.find(key);
  return it == p.parameters.end() ? fallback : std::stod(it->second);
}

// A model: the system, its initial state, and the map to the problem's (q, v).
struct SimbodyModel {
  SimTK::MultibodySystem system;
  SimTK::SimbodyMatterSubsystem matter{system};
  SimTK::GeneralForceSubsystem forces{system};
  std::vector<SimTK::MobilizedBody> bodies;
  std::function<void(const SimTK::State&, Vector&, Vector&)> to_problem;
  std::function<void(SimTK::State&)> set_initial;
};

// Torque T0 sin(wbar t) on one pin (paper 001 eq 12).
class HarmonicTorque : public SimTK::Force::Custom::Implementation {
 public:
  HarmonicTorque(SimTK::MobilizedBody body, double amplitude, double frequency)
      : body_(body), amplitude_(amplitude), frequency_(frequency) {}
  void calcForce(const SimTK::State& s, SimTK::Vector_<SimTK::SpatialVec>&,
                 SimTK::Vector_<SimTK::Vec3>&, SimTK::Vector& mobility) const override {
    body_.applyOneMobilityForce(s, 0, amplitude_ * std::sin(frequency_ * s.getTime()), mobility);
  }
  SimTK::Real calcPotentialEnergy(const SimTK::State&) const override { return 0; }

 private:
  SimTK::MobilizedBody body_;
  double amplitude_, frequency_;
};

// A pin at `joint_in_parent` of `parent`, the body's frame origin at the joint, its centre of
// mass at (0, -rho) in the body frame; the pin angle is 0 when the centre of mass hangs
// below the joint.
SimTK::MobilizedBody::Pin AddPendulumBody(SimbodyModel& m, SimTK::MobilizedBody& parent,
                                          SimTK::Vec3 joint_in_parent, double mass, double rho,
                                          double inertia_about_com) {
  const SimTK::Vec3 com(0, -rho, 0);
  // Simbody's inertia is about the body origin (the joint): parallel-axis shift.
  const SimTK::Inertia about_origin =
      SimTK::Inertia(inertia_about_com, inertia_about_com, inertia_about_com) +
      SimTK::Inertia(com, mass);
  SimTK::Body::Rigid body(SimTK::MassProperties(mass, com, about_origin));
  SimTK::MobilizedBody::Pin pin(parent, SimTK::Transform(joint_in_parent), body,
                                SimTK::Transform());
  m.bodies.push_back(pin);
  return pin;
}

// Builds the Simbody model of `problem`; nullptr if there is none.
std::unique_ptr<SimbodyModel> BuildModel(const Problem& problem) {
  auto m = std::make_unique<SimbodyModel>();
  const std::string& id = problem.id;
  if (id == "planar_pendulum") {
    const double mass = Param(problem, "mass", 1), l = Param(problem, "length", 1);
    SimTK::Force::UniformGravity(m->forces, m->matter,
                                 SimTK::Vec3(0, -Param(problem, "g", 9.81), 0));
    // A point mass: zero inertia about its centre; the pin's inertia is m l^2.
    auto pin = AddPendulumBody(*m, m->matter.Ground(), SimTK::Vec3(0), mass, l, 0.0);
    const double angle0 = std::atan2(problem.q0[0], -problem.q0[1]);
    m->set_initial = [pin, angle0](SimTK::State& s) { pin.setOneQ(s, 0, angle0); };
    m->to_problem = [pin](const SimTK::State& s, Vector& q, Vector& v) {
      const SimTK::Vec3 station = pin.getBodyMassCenterStation(s);
      const SimTK::Vec3 p = pin.findStationLocationInGround(s, station);
      const SimTK::Vec3 vel = pin.findStationVelocityInGround(s, station);
      q << p[0], p[1];  // Simbody's (X, Y) is the problem's (x, z)
      v << vel[0], vel[1];
    };
  } else if (id == "physical_pendulum") {
    const double mass = Param(problem, "mass", 1), rho = Param(problem, "rho", 0.5);
    const double j = Param(problem, "J", mass * 4 * rho * rho / 12);
    SimTK::Force::UniformGravity(m->forces, m->matter,
                                 SimTK::Vec3(0, -Param(problem, "g", 9.81), 0));
    auto pin = AddPendulumBody(*m, m->matter.Ground(), SimTK::Vec3(0), mass, rho, j);
    // gamma = angle from +x; the pin angle is measured from the downward vertical.
    const double angle0 = problem.q0[2] + M_PI / 2;
    m->set_initial = [pin, angle0](SimTK::State& s) { pin.setOneQ(s, 0, angle0); };
    m->to_problem = [pin](const SimTK::State& s, Vector& q, Vector& v) {
      const SimTK::Vec3 station = pin.getBodyMassCenterStation(s);
      const SimTK::Vec3 com = pin.findStationLocationInGround(s, station);
      const SimTK::Vec3 vel = pin.findStationVelocityInGround(s, station);
      q << com[0], com[1], pin.getOneQ(s, 0) - M_PI / 2;
      v << vel[0], vel[1], pin.getOneU(s, 0);
    };
  } else if (id == "stiff_pendulum") {
    const double mass = Param(problem, "mass", 1), l = Param(problem, "length", 1);
    SimTK::Force::UniformGravity(m->forces, m->matter,
                                 SimTK::Vec3(0, -Param(problem, "g", 9.8), 0));
    auto pin = AddPendulumBody(*m, m->matter.Ground(), SimTK::Vec3(0), mass, l, 0.0);
    SimTK::Force::Custom(
        m->forces, new HarmonicTorque(pin, Param(problem, "T0", 0.1), Param(problem, "wbar", 0.1)));
    const double theta0 = Param(problem, "theta0", 0);
    const bool minimal = problem.n() == 1;
    m->set_initial = [pin, theta0](SimTK::State& s) { pin.setOneQ(s, 0, theta0); };
    m->to_problem = [pin, minimal](const SimTK::State& s, Vector& q, Vector& v) {
      const double theta = pin.getOneQ(s, 0), rate = pin.getOneU(s, 0);
      if (minimal) {
        q << theta;
        v << rate;
        return;
      }
      const SimTK::Vec3 station = pin.getBodyMassCenterStation(s);
      const SimTK::Vec3 p = pin.findStationLocationInGround(s, station);
      const SimTK::Vec3 vel = pin.findStationVelocityInGround(s, station);
      q << p[0], p[1], theta;
      v << vel[0], vel[1], rate;
    };
  } else if (id == "double_pendulum" && problem.n() == 6) {
    const double mass = Param(problem, "mass", 1), l = Param(problem, "length", 1);
    const double k = Param(problem, "k", 10), c = Param(problem, "c", 0.1);
    SimTK::Force::UniformGravity(m->forces, m->matter,
                                 SimTK::Vec3(0, -Param(problem, "g", 9.81), 0));
    const double j = mass * l * l / 12;
    auto link1 = AddPendulumBody(*m, m->matter.Ground(), SimTK::Vec3(0), mass, l / 2, j);
    auto link2 = AddPendulumBody(*m, link1, SimTK::Vec3(0, -l, 0), mass, l / 2, j);
    // Torsional spring-dampers, at rest with the links hanging straight (relative angles 0).
    SimTK::Force::MobilityLinearSpring(m->forces, link1, 0, k, 0);
    SimTK::Force::MobilityLinearSpring(m->forces, link2, 0, k, 0);
    SimTK::Force::MobilityLinearDamper(m->forces, link1, 0, c);
    SimTK::Force::MobilityLinearDamper(m->forces, link2, 0, c);
    const double th1 = problem.q0[2], th2 = problem.q0[5];
    m->set_initial = [link1, link2, th1, th2](SimTK::State& s) {
      link1.setOneQ(s, 0, th1);
      link2.setOneQ(s, 0, th2 - th1);
    };
    m->to_problem = [link1, link2](const SimTK::State& s, Vector& q, Vector& v) {
      const SimTK::Vec3 s1 = link1.getBodyMassCenterStation(s),
                        s2 = link2.getBodyMassCenterStation(s);
      const SimTK::Vec3 p1 = link1.findStationLocationInGround(s, s1);
      const SimTK::Vec3 p2 = link2.findStationLocationInGround(s, s2);
      const SimTK::Vec3 v1 = link1.findStationVelocityInGround(s, s1);
      const SimTK::Vec3 v2 = link2.findStationVelocityInGround(s, s2);
      const double a1 = link1.getOneQ(s, 0), a2 = a1 + link2.getOneQ(s, 0);
      const double w1 = link1.getOneU(s, 0), w2 = w1 + link2.getOneU(s, 0);
      q << p1[0], p1[1], a1, p2[0], p2[1], a2;
      v << v1[0], v1[1], w1, v2[0], v2[1], w2;
    };
  } else {
    return nullptr;
  }
  m->system.realizeTopology();
  return m;
}

class SimbodyMethod final : public Method {
 public:
  explicit SimbodyMethod(const ParameterSet& p) : integrator_(p.GetString("integrator", "rkm")) {}

  std::string CheckApplicable(const Problem& problem) const override {
    if (!BuildModel(problem))
      return "no Simbody model for " + problem.id +
             " (models: planar_pendulum, physical_pendulum, stiff_pendulum, double_pendulum)";
    return {};
  }

  RunOutcome Run(const Problem& problem, const RunSettings& settings,
                 StepObserver& observer) const override {
    RunOutcome outcome;
    auto model = BuildModel(problem);
    if (!model) {
      outcome.status = RunStatus::kNotApplicable;
      outcome.message = CheckApplicable(problem);
      return outcome;
    }
    try {
      SimTK::State state = model->system.getDefaultState();
      model->set_initial(state);
      // Problem velocities start at rest or are mapped through the joint rates below.
      for (auto& body : model->bodies) body.setOneU(state, 0, 0.0);
      SetInitialRates(problem, *model, state);
      state.setTime(settings.t0);

      std::unique_ptr<SimTK::Integrator> integ;
      if (integrator_ == "rk3")
        integ = std::make_unique<SimTK::RungeKutta3Integrator>(model->system);
      else if (integrator_ == "cpodes")
        integ = std::make_unique<SimTK::CPodesIntegrator>(model->system);
      else
        integ = std::make_unique<SimTK::RungeKuttaMersonIntegrator>(model->system);
      integ->setAccuracy(settings.rtol);
      if (settings.h > 0.0) integ->setFixedStepSize(settings.h);
      integ->setReturnEveryInternalStep(true);
      integ->setAllowInterpolation(false);  // land exactly on report times
      integ->initialize(state);

      Vector q(problem.n()), v(problem.n());
      auto report = [&] {
        const SimTK::State& s = integ->getState();
        model->to_problem(s, q, v);
        observer.OnStep({s.getTime(), q, v, nullptr, nullptr});
      };
      report();
      size_t next_stop = 0;
      while (integ->getTime() < settings.t_end) {
        const double t = integ->getTime();
        while (next_stop < settings.stop_times.size() && settings.stop_times[next_stop] <= t)
          ++next_stop;
        const double target = next_stop < settings.stop_times.size()
                                  ? settings.stop_times[next_stop]
                                  : settings.t_end;
        integ->stepTo(target);
        report();
        if (observer.StopRequested()) {
          outcome.status = RunStatus::kUnstable;
          outcome.message = observer.StopReason();
          break;
        }
        if (integ->getNumStepsTaken() > settings.max_steps) {
          outcome.status = RunStatus::kFailed;
          outcome.message = "max_steps reached";
          break;
        }
      }
      outcome.counters.steps = integ->getNumStepsTaken();
      outcome.counters.rejected_steps = integ->getNumErrorTestFailures();
      outcome.counters.rhs_evals = integ->getNumRealizations();
    } catch (const std::exception& e) {
      outcome.status = RunStatus::kFailed;
      outcome.message = std::string("Simbody: ") + e.what();
    }
    return outcome;
  }

 private:
  // Joint rates from the problem's initial velocities (angular rates of the coordinates
  // that are angles).
  static void SetInitialRates(const Problem& p, SimbodyModel& m, SimTK::State& s) {
    if (p.id == "stiff_pendulum") m.bodies[0].setOneU(s, 0, p.v0[p.n() - 1]);
    if (p.id == "physical_pendulum") m.bodies[0].setOneU(s, 0, p.v0[2]);
    if (p.id == "double_pendulum") {
      m.bodies[0].setOneU(s, 0, p.v0[2]);
      m.bodies[1].setOneU(s, 0, p.v0[5] - p.v0[2]);
    }
    if (p.id == "planar_pendulum") {
      const double l = std::hypot(p.q0[0], p.q0[1]);
      // v = omega x r for r = (x, z): omega = (x vz - z vx) / l^2.
      m.bodies[0].setOneU(s, 0, (p.q0[0] * p.v0[1] - p.q0[1] * p.v0[0]) / (l * l));
    }
  }

  std::string integrator_;
};

}  // namespace

std::vector<MethodEntry> SimbodyMethodEntries() {
  return {{"simbody",
           "Simbody 3.7 peer engine in joint coordinates (planar pin-joint problems only)",
           "Simbody 3.7 (Debian)",
           true,
           true,
           {{"integrator", "rkm", "Simbody integrator", {"rkm", "rk3", "cpodes"}}},
           [](const ParameterSet& p) { return std::make_unique<SimbodyMethod>(p); }}};
}

}  // namespace mbb
