// Spatial joints of the joint-tree formulation (paper 004 s3.1, d = 6 for a rigid body,
// 3 for a point mass): every joint in the explicit form (7) p_b = r(p_a, q) with K = I and
// its acceleration form (9), at the velocity level of the absolute coordinates
//   rigid body   p' = (v, w): centre-of-mass velocity and angular velocity, both global
//   point mass   p' = v
// (the paper's p_i in R^6 is such a velocity-level set: orientations are not integrable
// coordinates; the pose itself is kept as a position and a rotation matrix).
//
// A joint's coordinates are a translation part followed by a rotation part:
//   translation  kWorld       3 components of the offset from the parent's joint point
//                             (a body no joint connects)
//                kDistance    2 angles (alpha, beta) of the link direction
//                             e = G (cos a cos b, sin a cos b, -sin b), length L
//                kParentAxes  1 or 2 slides along unit axes fixed in the parent (prismatic
//                             and cylindrical: axis_a; planar: two axes normal to axis_a)
//   rotation     kEuler       R_b = R_a C Rz(f0) Rx(f1) Rz(f2)  (spherical joints, free and
//                             distance-jointed rigid bodies)
//                kAxis        R_b = R_a C Rz(phi) D, C e_z = axis_a, phi = 0 at the stated
//                             pose (revolute, cylindrical, planar)
//                kLocked      R_b = R_a C, C the stated relative rotation (prismatic)
//                kNone        a point-mass child
// Both angle sets are charts with singular sets (beta = +-pi/2, sin f1 = 0), where J_i of
// (9) loses rank. The charts G and C are chosen when the model is built so that the stated
// pose is at least 30 degrees from the singular set (ChooseSpatialCharts says how); a
// run that comes within ChartMargin() of it stops with a message naming the joint: there
// is no chart switching.
#pragma once

#include <Eigen/Dense>
#include <string>

namespace mbb {

/// Fixed-capacity matrices for the per-body blocks (d, n <= 6): no heap allocation.
using BodyMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, 6, 6>;
using BodyVector = Eigen::Matrix<double, Eigen::Dynamic, 1, 0, 6, 1>;

/// The pose and twist of a spatial body (a point mass: R = I, w = 0).
struct SpatialFrame {
  Eigen::Vector3d x = Eigen::Vector3d::Zero(), v = Eigen::Vector3d::Zero(),
                  w = Eigen::Vector3d::Zero();
  Eigen::Matrix3d R = Eigen::Matrix3d::Identity();
};

/// The spatial geometry of the joint to a body's predecessor.
struct SpatialJoint {
  enum class Translation { kNone, kWorld, kDistance, kParentAxes };
  enum class Rotation { kNone, kEuler, kAxis, kLocked };
  Translation translation = Translation::kNone;
  Rotation rotation = Rotation::kNone;
  Eigen::Vector3d s_a = Eigen::Vector3d::Zero();  // joint point: parent frame (point mass,
  Eigen::Vector3d s_b = Eigen::Vector3d::Zero();  // ground: a global offset)
  double length = 0.0;                            // kDistance
  Eigen::Matrix3d link_chart = Eigen::Matrix3d::Identity();   // G of kDistance
  Eigen::Matrix3d euler_chart = Eigen::Matrix3d::Identity();  // C of kEuler, kAxis, kLocked
  Eigen::Matrix3d post = Eigen::Matrix3d::Identity();         // D of kAxis
  Eigen::Matrix<double, 3, 2> axes = Eigen::Matrix<double, 3, 2>::Zero();  // kParentAxes
  int num_axes = 0;
  Eigen::Vector3d axis_a = Eigen::Vector3d::UnitZ();  // kAxis: in the parent's frame
  // The joint and its child as a failing chart's message names them: "joint 'J' (body
  // 'B')", or "body 'B' (free, no joint)".
  std::string where;
  int translation_count() const;
  int rotation_count() const;
};

/// One joint's (7)-(9): the child's frame and p_b'' = A p_a'' + B q'' + c (so that
/// H = -A, J = -B, k^(II) = -c). `parent` is null for the ground; d_a = 0, 3 or 6.
/// Returns the chart margin: |cos beta| and |sin f1| at their smallest (1 without charts).
double SpatialJointKinematics(const SpatialJoint& g, const SpatialFrame* parent, bool parent_rigid,
                              bool child_rigid, const double* q, const double* qv,
                              SpatialFrame& child, BodyMatrix& A, BodyMatrix& B, BodyVector& c);

/// The inverse of (7), (8) for one joint: q, q' from the parent's and the child's frames.
/// Angles that wrap are taken within pi of the values q holds on entry (continuity along a
/// sequence of poses).
void SpatialJointCoordinates(const SpatialJoint& g, const SpatialFrame* parent, bool parent_rigid,
                             bool child_rigid, const SpatialFrame& child, double* q, double* qv);

/// Charts for the stated relative pose and twist: G puts the stated link direction at
/// alpha = beta = 0 with the poles normal to the plane it starts moving in (from rest: the
/// plane of the link and `gravity`); C keeps the nutation f1 within [30, 150] degrees (the
/// parent's z axis when the stated pose allows it, else a chart centred on the stated pose);
/// kAxis and kLocked get the C and D that put the stated pose at phi = 0.
void ChooseSpatialCharts(SpatialJoint& g, const SpatialFrame* parent, bool parent_rigid,
                         const SpatialFrame& child, const Eigen::Vector3d& gravity);

/// A run stops when a chart margin falls below this (J_i's condition ~ 1 / margin).
constexpr double kChartMargin = 1e-3;

/// The skew matrix [u]x (u x r = [u]x r).
Eigen::Matrix3d Skew(const Eigen::Vector3d& u);

}  // namespace mbb
