// A MuJoCo 2.2.2 model built from a Problem's ModelStructure (problems/model_structure.h) for
// the MuJoCo peer (mujoco_peer.cc): MJCF text generated in memory and compiled by
// mj_loadXML through MuJoCo's virtual file system; the initial state comes from the
// problem's (q0, v0) and every state maps back to the problem's (q, v) through the bodies'
// motions (problems/body_motion.h).
#pragma once

#include <mujoco/mujoco.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "problems/problem.h"

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

  // Translation data (mujoco_model.cc).
  const ModelStructure* structure = nullptr;
  std::shared_ptr<const ModelStructure> keep;
  std::vector<int> body_id;  // per model body: its MuJoCo body id
  std::vector<bool> rigid;   // per model body: rigid (orientation read), else point mass
  bool planar = true;
  Eigen::VectorXd qvel0;           // MuJoCo's qvel at t0 (from v0)
  std::vector<BodyMotion> motion;  // buffer for the mapping, also the previous values
  std::vector<BodyMotion> start;   // every body at t0
};

/// The MuJoCo model of `problem`, or nullptr with the reason in `why_not` (no structure, a
/// joint, force or driver the peer does not translate, MuJoCo's compiler refusing it, a
/// model that does not reproduce the initial state). `integrator`: "rk4", "euler" or
/// "implicit"; `h`: MuJoCo's timestep (s).
std::unique_ptr<MujocoModel> BuildMujocoModel(const Problem& problem, const std::string& integrator,
                                              double h, std::string& why_not);

}  // namespace mbb
