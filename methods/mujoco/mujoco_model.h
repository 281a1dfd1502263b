// A MuJoCo 2.2.2 model built from a Problem's ModelStructure (problems/model/model_structure.h) for
// the MuJoCo peer (mujoco_peer.cc): MJCF text generated in memory and compiled by
// mj_loadXML through MuJoCo's virtual file system; the initial state comes from the
// problem's (q0, v0) and every state maps back to the problem's (q, v) through the bodies'
// motions (problems/model/body_motion.h).
#pragma once

#include <mujoco/mujoco.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "problems/core/problem.h"
#include "problems/model/model_structure.h"

namespace mbb {

/// A MuJoCo error (mju_error) turned into an exception: the process never exits on one
/// (InstallMujocoHandlers).
struct MujocoError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Replaces MuJoCo's error handler (which prints and calls exit) by one that throws
/// MujocoError, and its warning handler by one that keeps the text for the run's message.
/// Idempotent and thread-safe.
void InstallMujocoHandlers();
/// The text of the last MuJoCo warning on this thread ("" if none).
std::string LastMujocoWarning();

struct MujocoModel {
  MujocoModel() = default;
  MujocoModel(const MujocoModel&) = delete;
  MujocoModel& operator=(const MujocoModel&) = delete;
  ~MujocoModel();

  mjModel* model = nullptr;
  mjData* data = nullptr;
  std::string xml;  // the generated MJCF (for messages and tests)
  /// Resets `data` to the problem's initial state (qpos = qpos0, qvel from v0).
  void SetInitial();
  /// The problem's (q, v) at data's qpos, qvel; called along a run in time order (planar
  /// angles and Euler parameters kept continuous from the previous call). Runs MuJoCo's
  /// position and velocity stages (mj_kinematics, mj_comPos, mj_comVel) on `data`.
  void ToProblem(Vector& q, Vector& v);

  // Translation data (mujoco_mjcf.cc, mujoco_model.cc).
  const ModelStructure* structure = nullptr;
  std::shared_ptr<const ModelStructure> keep;
  std::vector<int> body_id;  // per model body: its MuJoCo body id
  std::vector<bool> rigid;   // per model body: rigid (orientation read), else point mass
  bool planar = true;
  Eigen::VectorXd qvel0;           // MuJoCo's qvel at t0 (from v0)
  std::vector<BodyMotion> motion;  // buffer for the mapping, also the previous values
  std::vector<BodyMotion> start;   // every body at t0
  /// Loads MuJoCo has no element for, applied by the passive-force callback
  /// (mjcb_passive) at every force evaluation while this model runs (MakeCurrent).
  struct Load {
    enum class Kind { kForce, kTorque, kSpringDamper } kind = Kind::kForce;
    int body_a = -1, body_b = -1;      // MuJoCo body ids (0: the world)
    Eigen::Vector3d point_a, point_b;  // in the MuJoCo bodies' frames
    Eigen::Vector3d vector;            // force or torque (global), times law(t)
    TimeLaw law;
    double stiffness = 0, damping = 0, rest_length = 0;
  };
  std::vector<Load> loads;
  /// Makes this model's loads the ones the callback applies on this thread (null: none).
  static void MakeCurrent(const MujocoModel* model);
};

/// How the model is built and stepped (the method's parameters and the run's h).
struct MujocoOptions {
  std::string integrator = "rk4";  // "rk4", "euler" or "implicit"
  double h = 1e-3;                 // MuJoCo's timestep (s)
  /// Cut joints (kinematic loops): "none" refuses them; "connect" closes them with soft
  /// connect equality constraints (a revolute or spherical joint's point; a spatial
  /// revolute joint's axis by a second point one unit along it).
  std::string loops = "none";
  double loop_timeconst_h = 2.0;  // solref time constant, in steps h (MuJoCo needs >= 2)
  double loop_solimp = 0.9999;    // solimp d0 = d_width: the constraints' impedance
};

/// The MuJoCo model of `problem`, or nullptr with the reason in `why_not` (no structure, a
/// joint, force or driver the peer does not translate, MuJoCo's compiler refusing it, a
/// model that does not reproduce the initial state).
std::unique_ptr<MujocoModel> BuildMujocoModel(const Problem& problem, const MujocoOptions& options,
                                              std::string& why_not);

/// The MJCF text of the problem's model (mujoco_mjcf.cc), filling the translation data of
/// `out` (planar, rigid, start, motion, loads); "" with the reason in why_not when the
/// structure has an element MuJoCo cannot model.
std::string WriteMjcf(const Problem& problem, const MujocoOptions& options, MujocoModel& out,
                      std::string& why_not);

}  // namespace mbb
