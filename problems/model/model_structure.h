// The structure behind a Problem's DAE, for methods that need more than the equations:
// the model it was compiled from, which coordinates each body owns, which constraint rows
// each joint owns, and a kinematic tree (a spanning tree of the joint graph plus the cut
// joints that close its loops). Paper 002 needs the per-body coordinate blocks, paper 003
// the rows of each joint (its physical reactions), paper 004 and the Simbody peer the tree.
//
// Read-only once built and shared by every copy of the Problem. Hand-written problems may
// have none (Problem::structure is then null): a method that needs it says not_applicable.
#pragma once

#include <Eigen/Geometry>
#include <functional>
#include <string>
#include <vector>

#include "problems/core/mechanical_dae.h"
#include "problems/model/model_description.h"

namespace mbb {

/// How a body's coordinate block encodes its pose and twist. The formulation that lays the
/// block out declares it (its kinematics policy's kRigidLayout / kPointLayout, or the
/// hand-written problem); nothing infers it from the block's size, so a new coordinate set
/// of 6 or 7 coordinates per body is refused by every reader (problems/model/body_motion.h), not
/// misread as directors or Euler parameters.
enum class BodyLayout {
  kUndeclared,        // no pose layout a reader knows: refused with the formulation's name
  kPlanarPose,        // (x, y, theta), v = q'
  kPlanarPoint,       // (x, y)
  kEulerParameters,   // (x, y, z, e0, e1, e2, e3), v = q', e^T e = 1 (paper 000 eq 61)
  kSpatialPoint,      // (x, y, z)
  kPlanarDirectors,   // (x, y, d_1, d_2), the director formulation (paper 002 eqs 21-25)
  kSpatialDirectors,  // (x, y, z, d_1, d_2, d_3), the same in space
};

/// The coordinates one body owns in q (and v, where v = q'): q.segment(offset, size),
/// encoded as `layout` says.
struct BodyCoordinates {
  std::string name;
  int offset = 0;
  int size = 0;
  BodyLayout layout = BodyLayout::kUndeclared;
};

/// The bodies a joint connects, as indices into model.bodies (-1: the ground).
struct JointEnds {
  int body_a = -1;
  int body_b = -1;
};

/// The constraint rows one joint, driver or intrinsic constraint owns: rows
/// [first_row, first_row + num_rows) of Phi, with a name per row for messages.
struct ConstraintRows {
  enum class Owner { kJoint, kDriver, kBody };  // kBody: intrinsic (e.g. e^T e = 1)
  Owner owner = Owner::kJoint;
  int index = 0;  // into model.joints, model.drivers or model.bodies
  std::string name;
  int first_row = 0;
  int num_rows = 0;
  std::vector<std::string> row_names;
};

/// A spanning tree of the joint graph rooted at the ground. Bodies are indexed as in
/// model.bodies; -1 is the ground.
struct KinematicTree {
  std::vector<int> parent;        // per body: parent body (-1: ground)
  std::vector<int> parent_joint;  // per body: index into model.joints connecting it to parent
                                  // (-1: none, the body is free relative to the ground)
  /// Bodies in an order where every parent comes before its children.
  std::vector<int> topological_order;
  /// Joints not in the tree: each closes a loop (their equations become loop-closure
  /// constraints in a joint-coordinate formulation).
  std::vector<int> cut_joints;
};

/// Where one body is and how it moves, in the global frame: what a method working in other
/// coordinates (the Simbody peer, an analytic reference) hands back to be turned into the
/// problem's (q, v) by CoordinatesFromBodies (problems/model/body_motion.h).
struct BodyMotion {
  Eigen::Vector3d position = Eigen::Vector3d::Zero();  // centre of mass (planar: z = 0)
  Eigen::Quaterniond orientation = Eigen::Quaterniond::Identity();  // spatial rigid body
  double angle = 0.0;  // planar rigid body, continuous along a motion (not wrapped)
  Eigen::Vector3d velocity = Eigen::Vector3d::Zero();          // of the centre of mass
  Eigen::Vector3d angular_velocity = Eigen::Vector3d::Zero();  // global (planar: z)
};

struct ModelStructure {
  ModelDescription model;               // as compiled (resolved parameters, stated initial pose)
  std::string formulation;              // the registry name of the coordinate set (e.g. "planar")
  std::vector<BodyCoordinates> bodies;  // aligned with model.bodies
  std::vector<ConstraintRows> rows;     // every row of Phi, in order, exactly once
  /// Per model.joints: its two bodies, resolved from their names once (ResolveJointEnds).
  std::vector<JointEnds> joint_ends;
  KinematicTree tree;
  /// For a problem whose q is not made of the bodies' coordinate blocks (minimal or
  /// relative coordinates; `bodies` then empty): (q, v) from the motion of every body
  /// (aligned with model.bodies). Empty when the blocks make up q. The model's stated pose
  /// and twist are then the problem's q0, v0. Angles that (q, v) determine only modulo
  /// 2 pi are taken nearest the values q holds on entry, so that motions mapped in time
  /// order give continuous coordinates.
  std::function<void(const std::vector<BodyMotion>& bodies, Vector& q, Vector& v)>
      coordinates_from_bodies;
  /// Its inverse where the problem offers it (the joint tree's forward recursion): every
  /// body's motion at (q, v), `bodies` sized to model.bodies. Without it
  /// BodiesFromCoordinates returns the stated pose and twist, right only at (q0, v0) and
  /// only when the assembly kept them.
  std::function<void(const Vector& q, const Vector& v, std::vector<BodyMotion>& bodies)>
      bodies_from_coordinates;
  /// For a planar problem whose q is not made of the bodies' blocks (relative angles): at q,
  /// the Jacobian (2 x n) of the global position of the body-frame point `point` of body
  /// `body` (index into model.bodies) and the gradient (n) of the body's global angle. Null
  /// when the blocks make up q (methods then differentiate the blocks themselves) or when
  /// the problem does not offer it. Must not allocate (paper 003's reactions call it per step).
  std::function<void(const Vector& q, int body, const Eigen::Vector3d& point,
                     Eigen::Ref<Eigen::MatrixXd> position, Eigen::Ref<Eigen::VectorXd> angle)>
      planar_body_jacobian;
};

/// Every joint's bodies as indices (ModelStructure::joint_ends); throws InputError naming
/// the joint for a body the model does not have (problems/model/model_structure.cc).
std::vector<JointEnds> ResolveJointEnds(const ModelDescription& model);

/// The kinematic tree of a model (problems/model/model_structure.cc): breadth-first from
/// the ground over the joints in model order, so the tree is deterministic and every body
/// sits at its smallest joint distance from the ground. A body the joints do not connect
/// to the ground starts a further tree (the lowest-index such body; parent -1,
/// parent_joint -1: free relative to the ground). The joints not used are the cut joints:
/// joints - bodies of them for a mechanism connected to the ground.
KinematicTree BuildKinematicTree(const ModelDescription& model);

/// Appends the ConstraintRows of `owner` (rows [first, first + names.size())) to `rows`.
void AppendRows(std::vector<ConstraintRows>& rows, ConstraintRows::Owner owner, int index,
                const std::string& name, const std::vector<std::string>& row_names);

}  // namespace mbb
