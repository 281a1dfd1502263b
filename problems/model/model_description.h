// A multibody model described as data (docs/design.md "model layer"): bodies, joints, force
// elements, driving constraints, initial conditions and metadata. Plain structs, no
// equations: a formulation (formulation_registry.h) turns a model into a MechanicalDae,
// and model_problem.h into a catalogue Problem. The JSON reader
// (harness/model_file.cc) and C++ catalogue entries both fill this structure; the format
// is documented in docs/model-format.md.
//
// Conventions. A model is planar (dimension 2: bodies in the x-y plane; by default in
// coordinates (x, y, theta) per rigid body, (x, y) per point mass) or spatial (dimension 3:
// by default (x, y, z, e0, e1, e2, e3) per rigid body, Euler parameters e, and (x, y, z)
// per point mass); `formulation` chooses another registered coordinate set. Body-fixed points and
// axes are given in the body frame, whose origin is the centre of mass. The ground is the body
// named "ground" (always present, not listed).
#pragma once

#include <Eigen/Dense>
#include <string>
#include <unordered_map>
#include <vector>

namespace mbb {

/// value(t) = offset + rate t + amplitude sin(frequency t + phase): covers a constant,
/// a constant-speed drive and the T0 sin(w t) law of paper 001 eq (12).
struct TimeLaw {
  double offset = 0.0;
  double rate = 0.0;
  double amplitude = 0.0;
  double frequency = 0.0;
  double phase = 0.0;
  template <class T>
  T Eval(const T& t) const {
    using std::sin;
    return offset + rate * t + amplitude * sin(frequency * t + phase);
  }
};

enum class BodyKind { kRigid, kPointMass };

struct BodyDescription {
  std::string name;
  BodyKind kind = BodyKind::kRigid;
  double mass = 0.0;
  /// Planar: inertia(0,0) is J about the centre of mass (z axis). Spatial: the 3 x 3
  /// inertia tensor about the centre of mass in body axes.
  Eigen::Matrix3d inertia = Eigen::Matrix3d::Zero();
  // Initial pose and twist (global frame). Planar uses position(0..1), angle and
  // angular_velocity(2); spatial uses position, orientation (unit quaternion w, x, y, z)
  // and angular_velocity (global).
  Eigen::Vector3d position = Eigen::Vector3d::Zero();
  double angle = 0.0;
  Eigen::Vector4d orientation = Eigen::Vector4d(1.0, 0.0, 0.0, 0.0);
  Eigen::Vector3d velocity = Eigen::Vector3d::Zero();
  Eigen::Vector3d angular_velocity = Eigen::Vector3d::Zero();
  /// Initial values the source states, held while the layer assembles the rest
  /// (model_assembly.h): position names "x", "y", "z", "angle" (planar), "orientation"
  /// (spatial); velocity names "vx", "vy", "vz", "omega" (planar), "wx", "wy", "wz".
  std::vector<std::string> hold;
  /// The stated pose / twist is only a starting estimate for the assembly (the source does
  /// not state it): changing it is expected and gives no warning.
  bool pose_is_estimate = false;
  bool twist_is_estimate = false;
};

enum class JointKind {
  kRevolute,     // planar: 2 eqs; spatial: point + axis, 5 eqs
  kPrismatic,    // planar: 2 eqs; spatial: 5 eqs
  kSpherical,    // spatial: 3 eqs
  kUniversal,    // spatial: 4 eqs (axis_a on a perpendicular to axis_b on b)
  kCylindrical,  // spatial: 4 eqs
  kPlanar,       // spatial: 3 eqs (normals parallel, point b in the plane of a)
  kFixed,        // planar 3, spatial 6
  kDistance,     // 1 eq: |p_b - p_a| = length
  kPointOnLine,  // planar 1, spatial 2: point b on the line (point_a, axis_a)
};

struct JointDescription {
  std::string name;
  JointKind kind = JointKind::kRevolute;
  std::string body_a, body_b;  // "ground" for the fixed frame
  Eigen::Vector3d point_a = Eigen::Vector3d::Zero(), point_b = Eigen::Vector3d::Zero();
  /// Joint axis in each body frame (spatial revolute, prismatic, cylindrical, universal,
  /// planar normal; planar prismatic and point-on-line use axis_a in the plane).
  Eigen::Vector3d axis_a = Eigen::Vector3d::UnitZ(), axis_b = Eigen::Vector3d::UnitZ();
  double length = 0.0;  // kDistance
};

enum class ForceKind {
  kGravity,          // uniform field `vector` on every body
  kSpringDamper,     // translational, between point_a on body_a and point_b on body_b
  kTorsionalSpring,  // planar only: about the relative angle theta_b - theta_a
  kForce,            // applied force law(t) * vector at point_a of body_a (global direction)
  kTorque,           // applied torque law(t) * vector on body_a (planar: vector(2))
};

struct ForceDescription {
  std::string name;
  ForceKind kind = ForceKind::kGravity;
  std::string body_a, body_b;
  Eigen::Vector3d point_a = Eigen::Vector3d::Zero(), point_b = Eigen::Vector3d::Zero();
  Eigen::Vector3d vector = Eigen::Vector3d::Zero();
  double stiffness = 0.0, damping = 0.0, rest_length = 0.0;  // rest_length: angle if torsional
  TimeLaw law{1.0};  // kForce, kTorque: factor on `vector` (default: constant 1)
};

enum class DriverKind {
  kRelativeAngle,  // planar: theta_b - theta_a = law(t)
  kCoordinate,     // a body coordinate ("x", "y", "z", "angle") = law(t)
};

struct DriverDescription {
  std::string name;
  DriverKind kind = DriverKind::kRelativeAngle;
  std::string body_a, body_b;
  std::string coordinate;  // kCoordinate
  TimeLaw law;
};

enum class OutputKind {
  kPointX,
  kPointY,
  kPointZ,  // global coordinates of point on body
  kPointVX,
  kPointVY,
  kPointVZ,  // global velocity of point on body
  kAngle,    // planar body angle (continuous); spatial: rotation about axis
};

struct OutputDescription {
  std::string name;
  OutputKind kind = OutputKind::kPointX;
  std::string body;
  Eigen::Vector3d point = Eigen::Vector3d::Zero();
  Eigen::Vector3d axis = Eigen::Vector3d::UnitX();  // kAngle on a spatial body
  std::string reference_body;                       // kAngle planar: relative angle
  double offset = 0.0, scale = 1.0;                 // reported: offset + scale * value
};

struct ModelDescription {
  std::string file;  // where it was read from ("" for a C++ model): named in every error
  std::string id, title, source;
  int dimension = 2;  // 2 planar, 3 spatial
  /// Registry name of the coordinate set; empty: the default for the dimension
  /// ("planar" for 2, "euler-parameters" for 3).
  std::string formulation;
  /// Momentum components the forces leave conserved (names as Problem::conserved_momentum).
  std::vector<std::string> conserved_momentum;
  std::vector<BodyDescription> bodies;
  std::vector<JointDescription> joints;
  std::vector<ForceDescription> forces;
  std::vector<DriverDescription> drivers;
  std::vector<OutputDescription> outputs;
  double t_end = 1.0;
  double h_default = 1e-3;
  std::vector<std::string> default_methods = {"ida", "odeint-dopri5"};

  /// "model FILE" or "model TITLE": the prefix of every error message about this model.
  std::string Where() const;
};

/// Shared by the formulations: index of a body (-1 for "ground"); throws InputError.
int FindBodyIndex(const ModelDescription& model, const std::string& name,
                  const std::string& referrer);

/// FindBodyIndex for many lookups: the names hashed once. A linear search per joint makes
/// compiling a chain of N bodies O(N^2) (minutes at N = 1e5). Holds a reference to the
/// model, whose bodies must not change while it is used.
class BodyIndex {
 public:
  explicit BodyIndex(const ModelDescription& model);
  /// As FindBodyIndex: -1 for "ground"; an InputError naming `referrer` for an unknown name.
  int Find(const std::string& name, const std::string& referrer) const;

 private:
  const ModelDescription& model_;
  std::unordered_map<std::string, int> index_;
};
/// Two unit vectors completing `axis` (normalised) to a right-handed orthonormal frame.
void PerpendicularPair(const Eigen::Vector3d& axis, Eigen::Vector3d& f, Eigen::Vector3d& g);

}  // namespace mbb
