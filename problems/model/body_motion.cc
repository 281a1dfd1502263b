// Body coordinate blocks read as their formulation declared them (body_motion.h).
#include "problems/model/body_motion.h"

#include <cmath>

#include "problems/core/invariant.h"

namespace mbb {
namespace {

bool Planar(BodyLayout layout) {
  return layout == BodyLayout::kPlanarPose || layout == BodyLayout::kPlanarPoint ||
         layout == BodyLayout::kPlanarDirectors;
}

bool Directors(BodyLayout layout) {
  return layout == BodyLayout::kPlanarDirectors || layout == BodyLayout::kSpatialDirectors;
}

// Why body i's block cannot be read, empty if it can.
std::string BlockUnsupported(const ModelStructure& s, size_t i) {
  const BodyCoordinates& b = s.bodies[i];
  const std::string where = "body '" + b.name + "' in formulation '" + s.formulation + "'";
  if (b.layout == BodyLayout::kUndeclared)
    return where + " has a coordinate block of size " + std::to_string(b.size) +
           " whose layout the formulation does not declare (BodyCoordinates::layout): not "
           "read as a body pose";
  if (b.size != BodyLayoutSize(b.layout))
    return where + " has a coordinate block of size " + std::to_string(b.size) + ", not the " +
           std::to_string(BodyLayoutSize(b.layout)) + " of its declared layout " +
           BodyLayoutName(b.layout);
  const bool rigid = s.model.bodies[i].kind == BodyKind::kRigid;
  const bool point = b.layout == BodyLayout::kPlanarPoint || b.layout == BodyLayout::kSpatialPoint;
  if (rigid == point)
    return where + " is a " + (rigid ? "rigid body" : "point mass") + " in the layout " +
           BodyLayoutName(b.layout);
  if (Planar(b.layout) != (s.model.dimension == 2))
    return where + " has the layout " + BodyLayoutName(b.layout) + " in a " +
           std::to_string(s.model.dimension) + "-dimensional model";
  return {};
}

BodyMotion StatedMotion(const BodyDescription& b, int dimension) {
  BodyMotion m;
  m.position = b.position;
  m.velocity = b.velocity;
  m.angular_velocity = b.angular_velocity;
  if (dimension == 2) {
    m.position.z() = 0.0;
    m.velocity.z() = 0.0;
    m.angle = b.angle;
    m.orientation = Eigen::Quaterniond(Eigen::AngleAxisd(b.angle, Eigen::Vector3d::UnitZ()));
  } else {
    m.orientation =
        Eigen::Quaterniond(b.orientation[0], b.orientation[1], b.orientation[2], b.orientation[3])
            .normalized();
  }
  return m;
}

// One block from a body motion.
void BlockFromMotion(const BodyCoordinates& block, const BodyMotion& b, Vector& q, Vector& v) {
  const int o = block.offset;
  switch (block.layout) {
    case BodyLayout::kPlanarPose:
      q.segment<3>(o) << b.position.x(), b.position.y(), b.angle;
      v.segment<3>(o) << b.velocity.x(), b.velocity.y(), b.angular_velocity.z();
      break;
    case BodyLayout::kPlanarPoint:
      q.segment<2>(o) = b.position.head<2>();
      v.segment<2>(o) = b.velocity.head<2>();
      break;
    case BodyLayout::kEulerParameters: {
      q.segment<3>(o) = b.position;
      v.segment<3>(o) = b.velocity;
      const Eigen::Quaterniond& e = b.orientation;
      // e' = 1/2 (0, w) e for the global angular velocity w.
      const Eigen::Quaterniond w(0.0, b.angular_velocity.x(), b.angular_velocity.y(),
                                 b.angular_velocity.z());
      const Eigen::Quaterniond rate = w * e;
      q.segment<4>(o + 3) << e.w(), e.x(), e.y(), e.z();
      v.segment<4>(o + 3) << 0.5 * rate.w(), 0.5 * rate.x(), 0.5 * rate.y(), 0.5 * rate.z();
      break;
    }
    case BodyLayout::kSpatialPoint:
      q.segment<3>(o) = b.position;
      v.segment<3>(o) = b.velocity;
      break;
    case BodyLayout::kPlanarDirectors:
    case BodyLayout::kSpatialDirectors: {  // d_I = R e_I, d_I' = w x d_I
      const int dim = block.layout == BodyLayout::kPlanarDirectors ? 2 : 3;
      const Eigen::Matrix3d r =
          dim == 2 ? Eigen::Matrix3d(Eigen::AngleAxisd(b.angle, Eigen::Vector3d::UnitZ()))
                   : b.orientation.toRotationMatrix();
      q.segment(o, dim) = b.position.head(dim);
      v.segment(o, dim) = b.velocity.head(dim);
      for (int k = 0; k < dim; ++k) {
        q.segment(o + dim + dim * k, dim) = r.col(k).head(dim);
        v.segment(o + dim + dim * k, dim) = b.angular_velocity.cross(r.col(k)).head(dim);
      }
      break;
    }
    case BodyLayout::kUndeclared:
      MBB_INVARIANT(false, "undeclared body layout (callers check BodyCoordinatesUnsupported)");
  }
}

// One body motion from its block.
void MotionFromBlock(const BodyCoordinates& block, const Vector& q, const Vector& v,
                     BodyMotion& b) {
  b = BodyMotion();
  const int o = block.offset;
  switch (block.layout) {
    case BodyLayout::kPlanarPose:
      b.position.head<2>() = q.segment<2>(o);
      b.angle = q[o + 2];
      b.orientation = Eigen::Quaterniond(Eigen::AngleAxisd(b.angle, Eigen::Vector3d::UnitZ()));
      b.velocity.head<2>() = v.segment<2>(o);
      b.angular_velocity.z() = v[o + 2];
      break;
    case BodyLayout::kPlanarPoint:
      b.position.head<2>() = q.segment<2>(o);
      b.velocity.head<2>() = v.segment<2>(o);
      break;
    case BodyLayout::kEulerParameters: {
      b.position = q.segment<3>(o);
      b.velocity = v.segment<3>(o);
      b.orientation = Eigen::Quaterniond(q[o + 3], q[o + 4], q[o + 5], q[o + 6]);
      const Eigen::Quaterniond rate(v[o + 3], v[o + 4], v[o + 5], v[o + 6]);
      // w = 2 e' conj(e) (vector part), the inverse of e' = 1/2 (0, w) e for unit e.
      b.angular_velocity = 2.0 * (rate * b.orientation.conjugate()).vec();
      break;
    }
    case BodyLayout::kSpatialPoint:
      b.position = q.segment<3>(o);
      b.velocity = v.segment<3>(o);
      break;
    case BodyLayout::kPlanarDirectors:
    case BodyLayout::kSpatialDirectors: {  // R = [d_1 d_2 d_3], w = 1/2 sum_I d_I x d_I'
      const int dim = block.layout == BodyLayout::kPlanarDirectors ? 2 : 3;
      Eigen::Matrix3d r = Eigen::Matrix3d::Identity();
      b.position.head(dim) = q.segment(o, dim);
      b.velocity.head(dim) = v.segment(o, dim);
      for (int k = 0; k < dim; ++k) {
        Eigen::Vector3d d = Eigen::Vector3d::Zero(), dd = Eigen::Vector3d::Zero();
        d.head(dim) = q.segment(o + dim + dim * k, dim);
        dd.head(dim) = v.segment(o + dim + dim * k, dim);
        r.col(k) = d;
        b.angular_velocity += 0.5 * d.cross(dd);
      }
      if (dim == 2) {
        b.angle = std::atan2(r(1, 0), r(0, 0));  // wraps at +-pi
        b.orientation = Eigen::Quaterniond(Eigen::AngleAxisd(b.angle, Eigen::Vector3d::UnitZ()));
      } else {
        b.orientation = Eigen::Quaterniond(r).normalized();
      }
      break;
    }
    case BodyLayout::kUndeclared:
      MBB_INVARIANT(false, "undeclared body layout (callers check BodyCoordinatesUnsupported)");
  }
}

}  // namespace

int BodyLayoutSize(BodyLayout layout) {
  switch (layout) {
    case BodyLayout::kPlanarPose:
      return 3;
    case BodyLayout::kPlanarPoint:
      return 2;
    case BodyLayout::kEulerParameters:
      return 7;
    case BodyLayout::kSpatialPoint:
      return 3;
    case BodyLayout::kPlanarDirectors:
      return 6;
    case BodyLayout::kSpatialDirectors:
      return 12;
    case BodyLayout::kUndeclared:
      return 0;
  }
  return 0;
}

std::string BodyLayoutName(BodyLayout layout) {
  switch (layout) {
    case BodyLayout::kPlanarPose:
      return "planar pose (x, y, theta)";
    case BodyLayout::kPlanarPoint:
      return "planar point (x, y)";
    case BodyLayout::kEulerParameters:
      return "Euler parameters (x, y, z, e0, e1, e2, e3)";
    case BodyLayout::kSpatialPoint:
      return "spatial point (x, y, z)";
    case BodyLayout::kPlanarDirectors:
      return "planar directors (x, y, d_1, d_2)";
    case BodyLayout::kSpatialDirectors:
      return "spatial directors (x, y, z, d_1, d_2, d_3)";
    case BodyLayout::kUndeclared:
      return "undeclared";
  }
  return "undeclared";
}

std::string BodyCoordinatesUnsupported(const ModelStructure& s, int n) {
  if (s.bodies.empty()) {
    if (s.coordinates_from_bodies) return {};
    return "the problem's coordinates are not body coordinate blocks (formulation '" +
           s.formulation + "') and the structure maps no body motion to them";
  }
  if (s.bodies.size() != s.model.bodies.size())
    return "the structure's body blocks do not match its model's bodies";
  int covered = 0;
  for (size_t i = 0; i < s.bodies.size(); ++i) {
    const std::string why = BlockUnsupported(s, i);
    if (!why.empty()) return why;
    covered += s.bodies[i].size;
  }
  if (covered != n) return "the body blocks do not make up q";
  return {};
}

void CoordinatesFromBodies(const ModelStructure& s, const std::vector<BodyMotion>& bodies,
                           Vector& q, Vector& v) {
  if (s.bodies.empty()) {
    s.coordinates_from_bodies(bodies, q, v);
    return;
  }
  for (size_t i = 0; i < s.bodies.size(); ++i) BlockFromMotion(s.bodies[i], bodies[i], q, v);
}

void BodiesFromCoordinates(const ModelStructure& s, const Vector& q, const Vector& v,
                           std::vector<BodyMotion>& bodies) {
  bodies.resize(s.model.bodies.size());
  if (s.bodies.empty() && s.bodies_from_coordinates) {
    s.bodies_from_coordinates(q, v, bodies);
    return;
  }
  if (s.bodies.empty()) {
    for (size_t i = 0; i < bodies.size(); ++i)
      bodies[i] = StatedMotion(s.model.bodies[i], s.model.dimension);
    return;
  }
  for (size_t i = 0; i < s.bodies.size(); ++i) MotionFromBlock(s.bodies[i], q, v, bodies[i]);
}

std::string BodyJacobiansUnsupported(const ModelStructure& s) {
  if (s.bodies.empty())
    return s.model.dimension == 2 && s.planar_body_jacobian
               ? std::string()
               : "the problem's coordinates (formulation '" + s.formulation +
                     "') are not body blocks and offer no body point Jacobian";
  if (s.bodies.size() != s.model.bodies.size())
    return "the structure's body blocks do not match its model's bodies";
  for (size_t i = 0; i < s.bodies.size(); ++i) {
    const std::string why = BlockUnsupported(s, i);
    if (!why.empty()) return why;
    if (Directors(s.bodies[i].layout))
      return "body '" + s.bodies[i].name + "' in formulation '" + s.formulation +
             "': no point Jacobian for the layout " + BodyLayoutName(s.bodies[i].layout);
  }
  return {};
}

Eigen::Matrix3d BodyRotation(const ModelStructure& s, const Vector& q, int body) {
  if (body < 0 || s.bodies[body].layout != BodyLayout::kEulerParameters)
    return Eigen::Matrix3d::Identity();
  const int o = s.bodies[body].offset;
  return Eigen::Quaterniond(q[o + 3], q[o + 4], q[o + 5], q[o + 6]).normalized().toRotationMatrix();
}

Eigen::Vector3d BodyPoint(const ModelStructure& s, const Vector& q, int body,
                          const Eigen::Vector3d& p) {
  if (body < 0) return p;
  return q.segment<3>(s.bodies[body].offset) + BodyRotation(s, q, body) * p;
}

void SpatialPointJacobian(const ModelStructure& s, const Vector& q, int body,
                          const Eigen::Vector3d& p, Matrix& jp, Matrix& jw) {
  jp.setZero();
  jw.setZero();
  if (body < 0) return;
  const int o = s.bodies[body].offset;
  jp.block<3, 3>(0, o).setIdentity();
  if (s.bodies[body].layout != BodyLayout::kEulerParameters) return;  // point mass
  const double e0 = q[o + 3], e1 = q[o + 4], e2 = q[o + 5], e3 = q[o + 6];
  Eigen::Matrix<double, 3, 4> ebar;
  ebar << -e1, e0, -e3, e2, -e2, e3, e0, -e1, -e3, -e2, e1, e0;
  jw.block<3, 4>(0, o + 3) = 2.0 * ebar;
  const Eigen::Vector3d arm = BodyRotation(s, q, body) * p;
  Eigen::Matrix3d cross;  // [arm]x: w x arm = -[arm]x w
  cross << 0, -arm.z(), arm.y(), arm.z(), 0, -arm.x(), -arm.y(), arm.x(), 0;
  jp.block<3, 4>(0, o + 3) = -cross * jw.block<3, 4>(0, o + 3);
}

double PlanarBodyAngle(const ModelStructure& s, const Vector& q, int body) {
  if (body < 0 || s.bodies.empty() || s.bodies[body].layout != BodyLayout::kPlanarPose) return 0.0;
  return q[s.bodies[body].offset + 2];
}

Eigen::Vector2d PlanarBodyPoint(const ModelStructure& s, const Vector& q, int body,
                                const Eigen::Vector2d& p) {
  if (body < 0 || s.bodies.empty()) return p;
  const int o = s.bodies[body].offset;
  return Eigen::Vector2d(q[o], q[o + 1]) + Eigen::Rotation2Dd(PlanarBodyAngle(s, q, body)) * p;
}

void PlanarPointJacobian(const ModelStructure& s, const Vector& q, int body,
                         const Eigen::Vector2d& p, Matrix& j, Vector& angle) {
  j.setZero();
  angle.setZero();
  if (body < 0) return;
  if (s.planar_body_jacobian) {
    s.planar_body_jacobian(q, body, Eigen::Vector3d(p.x(), p.y(), 0.0), j, angle);
    return;
  }
  const int o = s.bodies[body].offset;
  j(0, o) = 1.0;
  j(1, o + 1) = 1.0;
  if (s.bodies[body].layout != BodyLayout::kPlanarPose) return;  // point mass
  const double th = q[o + 2], c = std::cos(th), sn = std::sin(th);
  j(0, o + 2) = -sn * p.x() - c * p.y();  // d(R(theta) s)/dtheta
  j(1, o + 2) = c * p.x() - sn * p.y();
  angle[o + 2] = 1.0;
}

}  // namespace mbb
