// A planar model as a spatial one: the x-y plane of the planar model is the x-y plane of
// the spatial one, and every element becomes its spatial counterpart about z.
//
//   body        position (x, y, 0), velocity (vx, vy, 0); orientation the quaternion of
//               the rotation theta about z, (cos theta/2, 0, 0, sin theta/2); angular
//               velocity (0, 0, omega); inertia diag(J/2, J/2, J) (below); held
//               "angle" -> "orientation", "omega" -> "wz"
//   revolute    spatial revolute about z (axis_a = axis_b = z)
//   prismatic   spatial prismatic along (axis_a, 0), axis_b the same line in b's frame at
//               the stated pose; the spatial joint also fixes the relative rotation
//   fixed, distance, point-on-line    their spatial counterparts (point-on-line along
//               (axis_a, 0))
//   gravity, spring-dampers, forces   the same vectors with z = 0
//   torques     the planar torque vector(2) about z
//   torsional spring-dampers   about body a's z axis (spatial_formulation.cc)
//   drivers     coordinate x or y: the same; relative_angle: the rotation of b relative to
//               a about a's z axis; coordinate angle: the same relative to the ground
//   outputs     the same; an angle is the rotation about z (relative to reference_body)
//
// Why the out-of-plane choices do not change the planar motion: the planar motion (z = 0,
// rotations about z only) solves the spatial equations exactly. Every applied force lies
// in the plane and every torque along z; with z a principal axis of each body's inertia
// the angular momentum A J A^T w = J w e_z stays along z and the gyroscopic term
// w x (J w) vanishes, so Ixx and Iyy never enter the equations along it, and the joints'
// out-of-plane reactions are zero. The choice Ixx = Iyy = J/2 is the thin lamina of the
// perpendicular-axis theorem (Izz = Ixx + Iyy): z is the axis of largest inertia, about
// which a free body's spin is stable, so a perturbation off the plane stays small too.
// A body free out of the plane (a point mass, a body held only by distance joints) keeps
// z = 0 because nothing pushes it off.
#include "problems/model/lift_planar.h"

#include <cmath>

namespace mbb {
namespace {

Eigen::Vector3d InPlane(const Eigen::Vector3d& v) { return Eigen::Vector3d(v.x(), v.y(), 0.0); }

// Unit quaternion (w, x, y, z) of the rotation `angle` about z.
Eigen::Vector4d AboutZ(double angle) {
  return Eigen::Vector4d(std::cos(0.5 * angle), 0.0, 0.0, std::sin(0.5 * angle));
}

BodyDescription LiftBody(const BodyDescription& planar) {
  BodyDescription b = planar;
  b.position = InPlane(planar.position);
  b.velocity = InPlane(planar.velocity);
  b.angular_velocity = Eigen::Vector3d(0.0, 0.0, planar.angular_velocity.z());
  if (planar.kind == BodyKind::kRigid) {
    const double j = planar.inertia(0, 0);
    b.inertia = Eigen::Vector3d(0.5 * j, 0.5 * j, j).asDiagonal();
    b.orientation = AboutZ(planar.angle);
  }
  b.angle = 0.0;
  for (auto& h : b.hold) {
    if (h == "angle") h = "orientation";
    if (h == "omega") h = "wz";
  }
  return b;
}

double StatedAngle(const ModelDescription& model, const std::string& body) {
  for (const auto& b : model.bodies)
    if (b.name == body && b.kind == BodyKind::kRigid) return b.angle;
  return 0.0;  // ground, point mass
}

JointDescription LiftJoint(const ModelDescription& model, const JointDescription& planar) {
  JointDescription j = planar;
  j.point_a = InPlane(planar.point_a);
  j.point_b = InPlane(planar.point_b);
  switch (planar.kind) {
    case JointKind::kRevolute:
      j.axis_a = j.axis_b = Eigen::Vector3d::UnitZ();
      break;
    case JointKind::kPrismatic: {
      j.axis_a = InPlane(planar.axis_a);
      // The same line in b's frame at the stated pose: R_b^T R_a axis_a, a rotation about z
      // by theta_a - theta_b.
      const double turn = StatedAngle(model, planar.body_a) - StatedAngle(model, planar.body_b);
      j.axis_b = Eigen::AngleAxisd(turn, Eigen::Vector3d::UnitZ()) * j.axis_a;
      break;
    }
    case JointKind::kPointOnLine:
      j.axis_a = InPlane(planar.axis_a);
      break;
    default:  // fixed, distance: no axis
      break;
  }
  return j;
}

ForceDescription LiftForce(const ForceDescription& planar) {
  ForceDescription f = planar;
  f.point_a = InPlane(planar.point_a);
  f.point_b = InPlane(planar.point_b);
  if (planar.kind == ForceKind::kTorque)
    f.vector = Eigen::Vector3d(0.0, 0.0, planar.vector.z());
  else
    f.vector = InPlane(planar.vector);
  return f;  // a torsional spring acts about body a's z axis, the plane normal
}

DriverDescription LiftDriver(const DriverDescription& planar) {
  DriverDescription d = planar;
  if (planar.kind == DriverKind::kCoordinate && planar.coordinate == "angle") {
    // theta = law(t): the rotation about z relative to the ground.
    d.kind = DriverKind::kRelativeAngle;
    d.body_a = "ground";
    d.body_b = planar.body_a;
    d.coordinate.clear();
  }
  return d;
}

}  // namespace

ModelDescription LiftPlanarModel(const ModelDescription& planar) {
  ModelDescription m = planar;
  m.dimension = 3;
  m.bodies.clear();
  for (const auto& b : planar.bodies) m.bodies.push_back(LiftBody(b));
  m.joints.clear();
  for (const auto& j : planar.joints) m.joints.push_back(LiftJoint(planar, j));
  m.forces.clear();
  for (const auto& f : planar.forces) m.forces.push_back(LiftForce(f));
  m.drivers.clear();
  for (const auto& d : planar.drivers) m.drivers.push_back(LiftDriver(d));
  for (auto& o : m.outputs) {
    o.point = InPlane(o.point);
    if (o.kind == OutputKind::kAngle) o.axis = Eigen::Vector3d::UnitZ();
  }
  return m;
}

}  // namespace mbb
