// Validation of a model description: the rules every formulation shares (names, references,
// signs, finite numbers, physical inertia), then the formulation's own rules
// (formulation_registry.h). Apart from the description itself so that the description is
// below the formulations that read it (scripts/include_graph.py).
#include "problems/model/model_validation.h"

#include <Eigen/Eigenvalues>
#include <cmath>
#include <cstdio>
#include <set>

#include "problems/core/parameters.h"
#include "problems/model/formulation.h"
#include "problems/model/formulation_registry.h"

namespace mbb {

namespace {
void RequireFinite(const ModelDescription& model, const std::string& what, double x) {
  if (!std::isfinite(x)) throw InputError(model.Where() + ": " + what + " is not finite");
}
template <class V>
void RequireFiniteVector(const ModelDescription& model, const std::string& what, const V& x) {
  if (!x.allFinite()) throw InputError(model.Where() + ": " + what + " is not finite");
}

// The principal moments of a rigid body satisfy the triangle inequality I1 <= I2 + I3 (and
// its permutations): I1 + I2 - I3 = 2 * integral of z^2 dm >= 0 in principal axes. A
// tensor that violates it describes no body. Equality is a thin rod or a flat plate, so
// the check allows rounding: 1e-9 of the trace, far above the few ulps with which a
// computed tensor misses an exact equality. A tensor that is not symmetric positive
// definite is left to the formulation, which refuses it with its own message.
void RequirePhysicalInertia(const ModelDescription& model, const BodyDescription& b) {
  if (model.dimension != 3 || b.kind != BodyKind::kRigid) return;
  if ((b.inertia - b.inertia.transpose()).norm() > 0.0) return;
  const Eigen::Vector3d moments =
      Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(b.inertia, Eigen::EigenvaluesOnly)
          .eigenvalues();
  if (!(moments.minCoeff() > 0.0)) return;
  const double slack = 1e-9 * moments.sum();
  for (int i = 0; i < 3; ++i) {
    const double others = moments.sum() - moments[i];
    if (moments[i] > others + slack) {
      char buf[160];
      std::snprintf(buf, sizeof buf,
                    "principal moment %.6g exceeds the sum of the other two (%.6g)", moments[i],
                    others);
      throw InputError(model.Where() + ": body '" + b.name +
                       "' inertia violates the triangle inequality: " + buf);
    }
  }
}
}  // namespace

// The rules every formulation shares: names, references, signs, finite numbers. The
// rules that depend on the coordinate set (joint kinds, inertia, held values, driver
// coordinates, output components) belong to the formulation (formulation_registry.cc),
// which ValidateModel runs last.
void ValidateModel(const ModelDescription& model) {
  const std::string& w = model.Where();
  if (model.dimension != 2 && model.dimension != 3)
    throw InputError(w + ": dimension must be 2 or 3");
  if (model.bodies.empty()) throw InputError(w + ": no bodies");
  if (!(model.t_end > 0.0)) throw InputError(w + ": end_time must be > 0");
  if (!(model.h_default > 0.0)) throw InputError(w + ": step must be > 0");
  // An unknown formulation is refused last, with the list of choices (FindFormulation).
  const FormulationEntry* formulation = FormulationOf(model);
  const bool zero_mass = formulation && formulation->admits_zero_mass;
  std::set<std::string> names;
  for (const auto& b : model.bodies) {
    const std::string what = "body '" + b.name + "'";
    if (b.name.empty() || b.name == "ground")
      throw InputError(w + ": body name '" + b.name + "' is empty or reserved");
    if (!names.insert(b.name).second) throw InputError(w + ": body '" + b.name + "' defined twice");
    // A formulation admitting zero or rank-deficient mass (paper 004's joint tree) says
    // so in its registry entry; every other needs a positive definite mass matrix.
    if (zero_mass) {
      if (!(b.mass >= 0.0)) throw InputError(w + ": " + what + " mass must be >= 0");
    } else if (!(b.mass > 0.0)) {
      throw InputError(w + ": " + what + " mass must be > 0");
    }
    RequireFiniteVector(model, what + " inertia", b.inertia);
    RequirePhysicalInertia(model, b);
    RequireFiniteVector(model, what + " position", b.position);
    RequireFinite(model, what + " angle", b.angle);
    RequireFiniteVector(model, what + " orientation", b.orientation);
    RequireFiniteVector(model, what + " velocity", b.velocity);
    RequireFiniteVector(model, what + " angular_velocity", b.angular_velocity);
    for (const auto& h : b.hold)
      if (b.kind == BodyKind::kPointMass &&
          (h == "angle" || h == "omega" || h == "orientation" || h[0] == 'w'))
        throw InputError(w + ": " + what + " hold: '" + h + "' is not a point-mass coordinate");
  }
  const BodyIndex bodies(model);
  for (const auto& j : model.joints) {
    const std::string what = "joint '" + j.name + "'";
    const int a = bodies.Find(j.body_a, what);
    const int b = bodies.Find(j.body_b, what);
    if (a == b) throw InputError(w + ": " + what + " connects body '" + j.body_a + "' to itself");
    RequireFiniteVector(model, what + " point_a", j.point_a);
    RequireFiniteVector(model, what + " point_b", j.point_b);
    RequireFiniteVector(model, what + " axis_a", j.axis_a);
    RequireFiniteVector(model, what + " axis_b", j.axis_b);
    RequireFinite(model, what + " length", j.length);
    if (j.kind == JointKind::kDistance && !(j.length > 0.0))
      throw InputError(w + ": " + what + " length must be > 0");
  }
  for (const auto& f : model.forces) {
    const std::string what = "force '" + f.name + "'";
    RequireFiniteVector(model, what + " vector", f.vector);
    RequireFiniteVector(model, what + " point_a", f.point_a);
    RequireFiniteVector(model, what + " point_b", f.point_b);
    RequireFinite(model, what + " stiffness", f.stiffness);
    RequireFinite(model, what + " damping", f.damping);
    RequireFinite(model, what + " rest_length", f.rest_length);
    if (f.kind == ForceKind::kGravity) continue;
    bodies.Find(f.body_a, what);
    if (f.kind == ForceKind::kSpringDamper || f.kind == ForceKind::kTorsionalSpring)
      bodies.Find(f.body_b, what);
    if (f.stiffness < 0.0 || f.damping < 0.0)
      throw InputError(w + ": " + what + " stiffness and damping must be >= 0");
  }
  for (const auto& d : model.drivers) {
    const std::string what = "driver '" + d.name + "'";
    const int a = bodies.Find(d.body_a, what);
    if (d.kind == DriverKind::kRelativeAngle) {
      bodies.Find(d.body_b, what);
    } else {
      if (a < 0) throw InputError(w + ": " + what + " must name a body, not ground");
      if (d.coordinate == "angle" && model.bodies[a].kind == BodyKind::kPointMass)
        throw InputError(w + ": " + what + ": a point mass has no angle");
    }
  }
  for (const auto& o : model.outputs) {
    const std::string what = "output '" + o.name + "'";
    const int b = bodies.Find(o.body, what);
    if (b < 0) throw InputError(w + ": " + what + " must name a body, not ground");
    if (o.kind == OutputKind::kAngle && model.bodies[b].kind == BodyKind::kPointMass)
      throw InputError(w + ": " + what + ": a point mass has no angle");
    if (!o.reference_body.empty()) {
      // Relative outputs are measured in the reference body's frame: it needs one, and a
      // velocity in a moving frame is not defined here (whose derivative?).
      const int r = bodies.Find(o.reference_body, what);
      if (r >= 0 && model.bodies[r].kind != BodyKind::kRigid)
        throw InputError(w + ": " + what + ": reference_body '" + o.reference_body +
                         "' must be a rigid body");
      if (r >= 0 && (o.kind == OutputKind::kPointVX || o.kind == OutputKind::kPointVY ||
                     o.kind == OutputKind::kPointVZ))
        throw InputError(w + ": " + what +
                         ": reference_body is not supported for velocity outputs");
    }
    RequireFinite(model, what + " offset", o.offset);
    RequireFinite(model, what + " scale", o.scale);
    RequireFiniteVector(model, what + " point", o.point);
    RequireFiniteVector(model, what + " axis", o.axis);
  }
  FindFormulation(model).validate(model);
}

}  // namespace mbb
