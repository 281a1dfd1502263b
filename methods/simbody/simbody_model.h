// A Simbody multibody system built from a Problem's ModelStructure
// (problems/model/model_structure.h) for the Simbody peer (simbody_peer.cc): the kinematic tree's
// joints become mobilizers, the cut joints Simbody constraints, the force elements Simbody forces;
// the initial state comes from the problem's (q0, v0) and every state maps back to the problem's
// (q, v) through the body coordinate blocks (problems/model/body_motion.h). Include only from
// -UNDEBUG translation units (docs/toolchain.md, trap 1).
#pragma once

#include <Simbody.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "problems/core/problem.h"

namespace mbb {

struct SimbodyModel {
  SimTK::MultibodySystem system;
  SimTK::SimbodyMatterSubsystem matter{system};
  SimTK::GeneralForceSubsystem forces{system};
  /// Sets q and u of every mobilizer from the problem's initial state.
  std::function<void(SimTK::State&)> set_initial;
  /// The problem's (q, v) at a state realized to Velocity; called along a run in time order
  /// (angles and Euler parameters are kept continuous from the previous call).
  std::function<void(const SimTK::State&, Vector&, Vector&)> to_problem;
};

/// The Simbody model of `problem`, or nullptr with the reason in `why_not` (no structure, a
/// joint, force or driver the peer does not translate, a state the model cannot reproduce).
std::unique_ptr<SimbodyModel> BuildSimbodyModel(const Problem& problem, std::string& why_not);

}  // namespace mbb
