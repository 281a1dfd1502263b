// A MuJoCo 2.2.2 model of a problem (mujoco_model.h): the MJCF text written from the
// problem's ModelStructure (mujoco_mjcf.cc, with the translation's conventions) compiled
// through MuJoCo's in-memory file system; MuJoCo's error and warning handlers; the
// passive-force callback that applies the loads MuJoCo has no element for; the initial
// qvel fitted to the bodies' velocities and the map of MuJoCo's state back to the
// problem's coordinates.
#include "methods/mujoco/mujoco_model.h"

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <mutex>

#include "problems/core/format.h"
#include "problems/model/body_motion.h"
#include "problems/model/model_compiler.h"  // JointKindName

namespace mbb {
namespace {

using V3 = Eigen::Vector3d;
using M3 = Eigen::Matrix3d;

thread_local std::string last_warning;

void ThrowingError(const char* message) { throw MujocoError(message); }
void KeepingWarning(const char* message) { last_warning = message; }

// Compiles MJCF text through MuJoCo's virtual file system (no file on disk).
mjModel* LoadXml(const std::string& xml, std::string& why_not) {
  auto vfs = std::make_unique<mjVFS>();  // ~2 MB: not on the stack
  mj_defaultVFS(vfs.get());
  const char* name = "mbbench_model.xml";
  if (mj_makeEmptyFileVFS(vfs.get(), name, static_cast<int>(xml.size())) != 0) {
    why_not = "MuJoCo's virtual file system refused the model text";
    return nullptr;
  }
  const int i = mj_findFileVFS(vfs.get(), name);
  std::memcpy(vfs->filedata[i], xml.data(), xml.size());
  char error[1000] = "";
  mjModel* model = mj_loadXML(name, vfs.get(), error, sizeof error);
  mj_deleteVFS(vfs.get());
  if (!model) why_not = "MuJoCo refused the model: " + OneLine(error);
  return model;
}

thread_local const MujocoModel* current_model = nullptr;

// A point of MuJoCo body k given in its frame: global position and velocity.
void PointMotion(const mjModel* m, const mjData* d, int k, const V3& local, V3& p, V3& v) {
  if (k <= 0) {
    p = local;
    v.setZero();
    return;
  }
  Eigen::Map<const Eigen::Matrix<mjtNum, 3, 3, Eigen::RowMajor>> r(d->xmat + 9 * k);
  p = V3(d->xpos[3 * k], d->xpos[3 * k + 1], d->xpos[3 * k + 2]) + r * local;
  mjtNum vel[6];  // (angular; linear) at the centre of mass, global
  mj_objectVelocity(m, d, mjOBJ_BODY, k, vel, 0);
  const V3 com(d->xipos[3 * k], d->xipos[3 * k + 1], d->xipos[3 * k + 2]);
  v = V3(vel[3], vel[4], vel[5]) + V3(vel[0], vel[1], vel[2]).cross(p - com);
}

void Apply(const mjModel* m, mjData* d, int k, const V3& force, const V3& torque, const V3& p) {
  if (k <= 0) return;  // the world takes it
  mjtNum f[3] = {force.x(), force.y(), force.z()}, t[3] = {torque.x(), torque.y(), torque.z()};
  mjtNum at[3] = {p.x(), p.y(), p.z()};
  mj_applyFT(m, d, f, t, at, k, d->qfrc_passive);
}

// mjcb_passive: MuJoCo calls it at the end of its passive forces, at every force
// evaluation (each RK4 stage, d->time at the stage's time), after the position and velocity
// stages. Adds the current model's loads to qfrc_passive.
void PassiveLoads(const mjModel* m, mjData* d) {
  const MujocoModel* model = current_model;
  if (!model || model->model != m) return;
  using Kind = MujocoModel::Load::Kind;
  const V3 zero = V3::Zero();
  for (const MujocoModel::Load& load : model->loads) {
    V3 pa, va, pb, vb;
    PointMotion(m, d, load.body_a, load.point_a, pa, va);
    switch (load.kind) {
      case Kind::kForce:
        Apply(m, d, load.body_a, load.law.Eval(d->time) * load.vector, zero, pa);
        break;
      case Kind::kTorque:
        Apply(m, d, load.body_a, zero, load.law.Eval(d->time) * load.vector, pa);
        break;
      case Kind::kSpringDamper: {
        PointMotion(m, d, load.body_b, load.point_b, pb, vb);
        const V3 delta = pb - pa;
        const double length = delta.norm();
        if (length == 0.0) break;  // no direction: no force (as a zero-length spring)
        const V3 u = delta / length;
        // Tension k (L - L0) + c L' pulls b towards a.
        const double tension =
            load.stiffness * (length - load.rest_length) + load.damping * u.dot(vb - va);
        Apply(m, d, load.body_a, tension * u, zero, pa);
        Apply(m, d, load.body_b, -tension * u, zero, pb);
        break;
      }
    }
  }
}

}  // namespace

void MujocoModel::MakeCurrent(const MujocoModel* model) { current_model = model; }

void InstallMujocoHandlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    mju_user_error = ThrowingError;
    mju_user_warning = KeepingWarning;
    mjcb_passive = PassiveLoads;
  });
}

std::string LastMujocoWarning() { return last_warning; }

MujocoModel::~MujocoModel() {
  if (data) mj_deleteData(data);
  if (model) mj_deleteModel(model);
}

void MujocoModel::SetInitial() {
  mj_resetData(model, data);
  for (int i = 0; i < model->nv; ++i) data->qvel[i] = qvel0[i];
  motion = start;  // the previous values for continuity
}

void MujocoModel::ToProblem(Vector& q, Vector& v) {
  mj_kinematics(model, data);
  mj_comPos(model, data);
  mj_comVel(model, data);
  for (size_t b = 0; b < body_id.size(); ++b) {
    const int k = body_id[b];
    BodyMotion& m = motion[b];
    mjtNum vel[6];  // (angular; linear) of the centre of mass, global
    mj_objectVelocity(model, data, mjOBJ_BODY, k, vel, 0);
    m.position = V3(data->xipos[3 * k], data->xipos[3 * k + 1], data->xipos[3 * k + 2]);
    m.angular_velocity = V3(vel[0], vel[1], vel[2]);
    m.velocity = V3(vel[3], vel[4], vel[5]);
    if (!rigid[b]) continue;
    const mjtNum* xq = data->xquat + 4 * k;  // the body frame: the model body's frame
    Eigen::Quaterniond e(xq[0], xq[1], xq[2], xq[3]);
    // Continuous along the run: the angle within pi of the previous one, the Euler
    // parameters on the previous ones' side (e and -e are the same rotation).
    const M3 r = e.toRotationMatrix();
    const double raw = std::atan2(r(1, 0), r(0, 0));
    m.angle += std::remainder(raw - m.angle, 2.0 * M_PI);
    if (e.coeffs().dot(m.orientation.coeffs()) < 0.0) e.coeffs() = -e.coeffs();
    m.orientation = e;
  }
  CoordinatesFromBodies(*structure, motion, q, v);
}

std::unique_ptr<MujocoModel> BuildMujocoModel(const Problem& problem, const MujocoOptions& options,
                                              std::string& why_not) {
  if (!problem.structure) {
    why_not = "the problem has no model structure (a hand-written problem without one)";
    return nullptr;
  }
  InstallMujocoHandlers();
  auto out = std::make_unique<MujocoModel>();
  out->keep = problem.structure;
  out->structure = problem.structure.get();
  try {
    out->xml = WriteMjcf(problem, options, *out, why_not);
    if (!why_not.empty()) return nullptr;
    out->model = LoadXml(out->xml, why_not);
    if (!out->model) return nullptr;
    out->data = mj_makeData(out->model);
    const size_t nb = out->start.size();
    out->body_id.resize(nb);
    for (size_t b = 0; b < nb; ++b)
      out->body_id[b] = mj_name2id(out->model, mjOBJ_BODY, ("b" + std::to_string(b)).c_str());
    for (MujocoModel::Load& load : out->loads) {  // model indices -> MuJoCo ids (0: world)
      load.body_a = load.body_a < 0 ? 0 : out->body_id[load.body_a];
      load.body_b = load.body_b < 0 ? 0 : out->body_id[load.body_b];
    }
    // qvel at t0: least squares on every body's centre-of-mass Jacobians, J qvel = the
    // bodies' velocities from v0 (exact for a v0 the joints allow; the check below tells).
    mjModel* m = out->model;
    mjData* d = out->data;
    mj_resetData(m, d);
    mj_kinematics(m, d);
    mj_comPos(m, d);
    const int nv = m->nv;
    Eigen::Matrix<mjtNum, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> jp(3, nv), jr(3, nv);
    Eigen::MatrixXd a(6 * nb, nv);
    Eigen::VectorXd rhs(6 * nb);
    for (size_t b = 0; b < nb; ++b) {
      mj_jacBodyCom(m, d, jp.data(), jr.data(), out->body_id[b]);
      a.block(6 * b, 0, 3, nv) = jp;
      rhs.segment<3>(6 * b) = out->start[b].velocity;
      const double w = out->rigid[b] ? 1.0 : 0.0;  // a point mass's spin is free
      a.block(6 * b + 3, 0, 3, nv) = w * jr;
      rhs.segment<3>(6 * b + 3) = w * out->start[b].angular_velocity;
    }
    out->qvel0 = nv > 0 ? Eigen::VectorXd(a.colPivHouseholderQr().solve(rhs)) : Eigen::VectorXd();
    // Self-check: the model must reproduce the problem's initial state.
    out->SetInitial();
    Vector q = problem.q0, v(problem.n());  // q0: the continuity hint of wrapped angles
    out->ToProblem(q, v);
    const double dq = (q - problem.q0).lpNorm<Eigen::Infinity>();
    const double dv = (v - problem.v0).lpNorm<Eigen::Infinity>();
    // The assembled q0 satisfies the joints to about 1e-10 or better; a wrong frame or
    // mapping is off by O(1).
    if (!(dq <= 1e-8 * (1.0 + problem.q0.lpNorm<Eigen::Infinity>())) ||
        !(dv <= 1e-8 * (1.0 + problem.v0.lpNorm<Eigen::Infinity>()))) {
      why_not =
          "the MuJoCo model does not reproduce the initial state (|dq| = " + FormatNumber(dq) +
          ", |dv| = " + FormatNumber(dv) + ")";
      return nullptr;
    }
  } catch (const MujocoError& e) {
    why_not = "MuJoCo error while building the model: " + OneLine(e.what());
    return nullptr;
  }
  return out;
}

}  // namespace mbb
