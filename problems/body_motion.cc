#include "problems/body_motion.h"

#include <cmath>

namespace mbb {
namespace {

// Rigid blocks of 6 and 12 are the directors formulation's (centre of mass + body axes d_I,
// director_formulation.cc).
enum class Layout {
  kPlanarRigid,
  kPlanarPoint,
  kSpatialRigid,
  kSpatialPoint,
  kPlanarDirectors,
  kSpatialDirectors,
  kUnknown
};

Layout LayoutOf(const BodyDescription& body, int size) {
  const bool rigid = body.kind == BodyKind::kRigid;
  if (rigid && size == 3) return Layout::kPlanarRigid;
  if (rigid && size == 7) return Layout::kSpatialRigid;
  if (rigid && size == 6) return Layout::kPlanarDirectors;
  if (rigid && size == 12) return Layout::kSpatialDirectors;
  if (!rigid && size == 2) return Layout::kPlanarPoint;
  if (!rigid && size == 3) return Layout::kSpatialPoint;
  return Layout::kUnknown;
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

}  // namespace

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
    if (LayoutOf(s.model.bodies[i], s.bodies[i].size) == Layout::kUnknown)
      return "body '" + s.bodies[i].name + "' has a coordinate block of size " +
             std::to_string(s.bodies[i].size) + " in formulation '" + s.formulation +
             "', not a body pose layout";
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
  for (size_t i = 0; i < s.bodies.size(); ++i) {
    const BodyMotion& b = bodies[i];
    const int o = s.bodies[i].offset;
    switch (LayoutOf(s.model.bodies[i], s.bodies[i].size)) {
      case Layout::kPlanarRigid:
        q.segment<3>(o) << b.position.x(), b.position.y(), b.angle;
        v.segment<3>(o) << b.velocity.x(), b.velocity.y(), b.angular_velocity.z();
        break;
      case Layout::kPlanarPoint:
        q.segment<2>(o) = b.position.head<2>();
        v.segment<2>(o) = b.velocity.head<2>();
        break;
      case Layout::kSpatialRigid: {
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
      case Layout::kSpatialPoint:
        q.segment<3>(o) = b.position;
        v.segment<3>(o) = b.velocity;
        break;
      case Layout::kPlanarDirectors:
      case Layout::kSpatialDirectors: {  // d_I = R e_I, d_I' = w x d_I
        const int dim = s.bodies[i].size == 6 ? 2 : 3;
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
      case Layout::kUnknown:
        break;  // refused by BodyCoordinatesUnsupported
    }
  }
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
  for (size_t i = 0; i < s.bodies.size(); ++i) {
    BodyMotion& b = bodies[i];
    b = BodyMotion();
    const int o = s.bodies[i].offset;
    switch (LayoutOf(s.model.bodies[i], s.bodies[i].size)) {
      case Layout::kPlanarRigid:
        b.position.head<2>() = q.segment<2>(o);
        b.angle = q[o + 2];
        b.orientation = Eigen::Quaterniond(Eigen::AngleAxisd(b.angle, Eigen::Vector3d::UnitZ()));
        b.velocity.head<2>() = v.segment<2>(o);
        b.angular_velocity.z() = v[o + 2];
        break;
      case Layout::kPlanarPoint:
        b.position.head<2>() = q.segment<2>(o);
        b.velocity.head<2>() = v.segment<2>(o);
        break;
      case Layout::kSpatialRigid: {
        b.position = q.segment<3>(o);
        b.velocity = v.segment<3>(o);
        b.orientation = Eigen::Quaterniond(q[o + 3], q[o + 4], q[o + 5], q[o + 6]);
        const Eigen::Quaterniond rate(v[o + 3], v[o + 4], v[o + 5], v[o + 6]);
        // w = 2 e' conj(e) (vector part), the inverse of e' = 1/2 (0, w) e for unit e.
        b.angular_velocity = 2.0 * (rate * b.orientation.conjugate()).vec();
        break;
      }
      case Layout::kSpatialPoint:
        b.position = q.segment<3>(o);
        b.velocity = v.segment<3>(o);
        break;
      case Layout::kPlanarDirectors:
      case Layout::kSpatialDirectors: {  // R = [d_1 d_2 d_3], w = 1/2 sum_I d_I x d_I'
        const int dim = s.bodies[i].size == 6 ? 2 : 3;
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
      case Layout::kUnknown:
        break;
    }
  }
}

}  // namespace mbb
