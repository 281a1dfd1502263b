// Physical joint reactions (35), (37), (38) of paper 003 through the distribution matrix B
// (32) built per joint kind (see the header).
#include "methods/partitioning/reactions.h"

#include <cmath>
#include <limits>

#include "problems/model/body_motion.h"
#include "problems/model/model_structure.h"

namespace mbb {
namespace {

// Rows of Phi a planar joint kind owns (planar_formulation.cc), = its physical components.
int PlanarComponents(JointKind kind) {
  switch (kind) {
    case JointKind::kRevolute:
      return 2;
    case JointKind::kPrismatic:
      return 2;
    case JointKind::kFixed:
      return 3;
    case JointKind::kDistance:
    case JointKind::kPointOnLine:
      return 1;
    default:
      return 0;
  }
}

const char* ComponentName(JointKind kind, int c) {
  switch (kind) {
    case JointKind::kRevolute:
      return c == 0 ? "fx" : "fy";
    case JointKind::kFixed:
      return c == 0 ? "fx" : c == 1 ? "fy" : "mz";
    case JointKind::kPrismatic:
      return c == 0 ? "fn" : "mz";
    case JointKind::kDistance:
      return "f";
    default:
      return "fn";
  }
}

// Rows of Phi a spatial joint kind owns (spatial_formulation.cc), = its physical components.
int SpatialComponents(JointKind kind) {
  switch (kind) {
    case JointKind::kSpherical:
      return 3;
    case JointKind::kRevolute:
    case JointKind::kPrismatic:
      return 5;
    case JointKind::kUniversal:
    case JointKind::kCylindrical:
      return 4;
    case JointKind::kPlanar:
      return 3;
    case JointKind::kFixed:
      return 6;
    case JointKind::kPointOnLine:
      return 2;
    case JointKind::kDistance:
      return 1;
  }
  return 0;
}

// Component names of a spatial joint's reaction (f: force, m: moment; x/y/z global, f/g the
// two directions normal to the joint axis u, h the cross axis of a universal joint).
const char* SpatialComponentName(JointKind kind, int c) {
  static const char* const kForces[] = {"fx", "fy", "fz"};
  switch (kind) {
    case JointKind::kSpherical:
      return kForces[c];
    case JointKind::kRevolute:
      return c < 3 ? kForces[c] : c == 3 ? "mf" : "mg";
    case JointKind::kUniversal:
      return c < 3 ? kForces[c] : "mh";
    case JointKind::kCylindrical:
      return c == 0 ? "ff" : c == 1 ? "fg" : c == 2 ? "mf" : "mg";
    case JointKind::kPrismatic:
      return c == 0 ? "ff" : c == 1 ? "fg" : c == 2 ? "mf" : c == 3 ? "mg" : "mu";
    case JointKind::kPlanar:
      return c == 0 ? "fu" : c == 1 ? "mf" : "mg";
    case JointKind::kFixed:
      return c < 3 ? kForces[c] : c == 3 ? "mx" : c == 4 ? "my" : "mz";
    case JointKind::kPointOnLine:
      return c == 0 ? "ff" : "fg";
    case JointKind::kDistance:
      return "f";
  }
  return "f";
}

// Two unit vectors completing u to an orthonormal frame.
void Complete(const Eigen::Vector3d& u, Eigen::Vector3d& f, Eigen::Vector3d& g) {
  const Eigen::Vector3d seed =
      std::abs(u.x()) < 0.9 ? Eigen::Vector3d::UnitX() : Eigen::Vector3d::UnitY();
  f = (seed - seed.dot(u) * u).normalized();
  g = u.cross(f);
}

bool NeedsGeometry(JointKind kind) {
  return kind == JointKind::kPrismatic || kind == JointKind::kDistance ||
         kind == JointKind::kPointOnLine;
}

const char* const kFormulas[3] = {"eq35", "eq37", "eq38"};

}  // namespace

struct JointReactions::Impl {
  struct JointRows {
    JointKind kind = JointKind::kRevolute;
    int first_row = 0, num_rows = 0;
    int body_a = -1, body_b = -1;  // -1: ground
    Eigen::Vector2d point_a = Eigen::Vector2d::Zero(), point_b = Eigen::Vector2d::Zero(),
                    axis_a = Eigen::Vector2d::Zero();
    Eigen::Vector3d point_a3 = Eigen::Vector3d::Zero(), point_b3 = Eigen::Vector3d::Zero(),
                    axis_a3 = Eigen::Vector3d::UnitZ(), axis_b3 = Eigen::Vector3d::UnitZ();
    int owner = 0;  // 0 joint, 1 driver or body row (B row = the constraint row)
  };

  explicit Impl(const Problem& p)
      : structure(*p.structure),
        n(p.n()),
        m(p.m()),
        b(p.m(), p.n()),
        ja(2, p.n()),
        jb(2, p.n()),
        angle_a(p.n()),
        angle_b(p.n()),
        residual(p.n()),
        work_n(p.n()),
        bbt(p.m(), p.m()),
        f35(p.m()),
        f37(p.m()),
        f38(p.m()),
        rhs_m(p.m()),
        t_bd(p.n(), p.n()),
        t_lu(p.n()),
        solution(p.n()),
        mass_llt(p.n()),
        m_inv(p.n(), p.n()),
        identity(Matrix::Identity(p.n(), p.n())),
        m_inv_bt(p.n(), p.m()),
        dm(std::max(p.n() - p.m(), 0), p.n()) {
    pa.resize(3, p.n());
    pb.resize(3, p.n());
    wa.resize(3, p.n());
    wb.resize(3, p.n());
    spatial = structure.model.dimension == 3;
    for (const ConstraintRows& rows : structure.rows) {
      JointRows jr;
      jr.first_row = rows.first_row;
      jr.num_rows = rows.num_rows;
      if (rows.owner != ConstraintRows::Owner::kJoint) {
        jr.owner = 1;
        jr.kind = JointKind::kDistance;
        jr.body_a = jr.body_b = -1;
        joints.push_back(jr);
        continue;
      }
      const JointDescription& j = structure.model.joints[rows.index];
      jr.kind = j.kind;
      jr.body_a = structure.joint_ends[rows.index].body_a;
      jr.body_b = structure.joint_ends[rows.index].body_b;
      jr.point_a = j.point_a.head<2>();
      jr.point_b = j.point_b.head<2>();
      jr.axis_a = j.axis_a.head<2>();
      jr.point_a3 = j.point_a;
      jr.point_b3 = j.point_b;
      jr.axis_a3 = j.axis_a.normalized();
      jr.axis_b3 = j.axis_b.normalized();
      joints.push_back(jr);
    }
  }

  // Body rotations, points and point Jacobians: as the formulation declared each body's
  // coordinates (problems/model/body_motion.h).
  Eigen::Matrix3d Rotation(const Vector& q, int body) const {
    return BodyRotation(structure, q, body);
  }
  void SpatialJacobian(const Vector& q, int body, const Eigen::Vector3d& s, Matrix& jp,
                       Matrix& jw) const {
    SpatialPointJacobian(structure, q, body, s, jp, jw);
  }
  Eigen::Vector3d SpatialPoint(const Vector& q, int body, const Eigen::Vector3d& s) const {
    return BodyPoint(structure, q, body, s);
  }

  void BuildSpatial(const Vector& q, const Matrix& phi_q) {
    for (const JointRows& jr : joints) {
      const int r = jr.first_row;
      if (jr.owner == 1) {  // driver or gauge row: its own direction
        b.middleRows(r, jr.num_rows) = phi_q.middleRows(r, jr.num_rows);
        continue;
      }
      // The force acts at p_b on b and on the material point of a that coincides with p_b
      // (action and reaction at one point; for a sliding joint p_a != p_b).
      const Eigen::Vector3d p_b = SpatialPoint(q, jr.body_b, jr.point_b3);
      const Eigen::Vector3d s_a =
          jr.kind == JointKind::kDistance ? jr.point_a3
          : jr.body_a < 0
              ? p_b
              : Eigen::Vector3d(Rotation(q, jr.body_a).transpose() *
                                (p_b - q.segment<3>(structure.bodies[jr.body_a].offset)));
      SpatialJacobian(q, jr.body_a, s_a, pa, wa);
      SpatialJacobian(q, jr.body_b, jr.point_b3, pb, wb);
      pb -= pa;  // relative virtual displacement of the joint points
      wb -= wa;  // relative virtual rotation
      const Eigen::Vector3d u = Rotation(q, jr.body_a) * jr.axis_a3;
      Eigen::Vector3d f, g;
      Complete(u, f, g);
      switch (jr.kind) {
        case JointKind::kSpherical:
          b.middleRows(r, 3) = pb;
          break;
        case JointKind::kRevolute:
          b.middleRows(r, 3) = pb;
          b.row(r + 3) = f.transpose() * wb;
          b.row(r + 4) = g.transpose() * wb;
          break;
        case JointKind::kUniversal: {
          const Eigen::Vector3d h = u.cross(Rotation(q, jr.body_b) * jr.axis_b3).normalized();
          b.middleRows(r, 3) = pb;
          b.row(r + 3) = h.transpose() * wb;
          break;
        }
        case JointKind::kCylindrical:
        case JointKind::kPrismatic:
          b.row(r) = f.transpose() * pb;
          b.row(r + 1) = g.transpose() * pb;
          b.row(r + 2) = f.transpose() * wb;
          b.row(r + 3) = g.transpose() * wb;
          if (jr.kind == JointKind::kPrismatic) b.row(r + 4) = u.transpose() * wb;
          break;
        case JointKind::kPlanar:
          b.row(r) = u.transpose() * pb;
          b.row(r + 1) = f.transpose() * wb;
          b.row(r + 2) = g.transpose() * wb;
          break;
        case JointKind::kFixed:
          b.middleRows(r, 3) = pb;
          b.middleRows(r + 3, 3) = wb;
          break;
        case JointKind::kPointOnLine:
          b.row(r) = f.transpose() * pb;
          b.row(r + 1) = g.transpose() * pb;
          break;
        case JointKind::kDistance: {
          const Eigen::Vector3d d =
              (SpatialPoint(q, jr.body_b, jr.point_b3) - SpatialPoint(q, jr.body_a, jr.point_a3))
                  .normalized();
          b.row(r) = d.transpose() * pb;
          break;
        }
      }
    }
  }

  // Body block offset of a body (-1: ground or no blocks).
  int Offset(int body) const {
    return body < 0 || structure.bodies.empty() ? -1 : structure.bodies[body].offset;
  }
  void PointJacobian(const Vector& q, int body, const Eigen::Vector2d& s, Matrix& j,
                     Vector& angle) const {
    PlanarPointJacobian(structure, q, body, s, j, angle);
  }
  Eigen::Vector2d Point(const Vector& q, int body, const Eigen::Vector2d& s) const {
    return PlanarBodyPoint(structure, q, body, s);
  }
  double Angle(const Vector& q, int body) const { return PlanarBodyAngle(structure, q, body); }

  void Build(const Vector& q, const Matrix& phi_q) {
    if (spatial) return BuildSpatial(q, phi_q);
    for (const JointRows& jr : joints) {
      if (jr.owner == 1) {  // driver row: its own direction
        b.middleRows(jr.first_row, jr.num_rows) = phi_q.middleRows(jr.first_row, jr.num_rows);
        continue;
      }
      // As in 3-D: a's material point coinciding with p_b (body blocks; relative coordinates
      // carry revolute joints only, where the points coincide anyway).
      Eigen::Vector2d s_a = jr.point_a;
      if (jr.kind != JointKind::kDistance && !structure.planar_body_jacobian) {
        const Eigen::Vector2d p_b = Point(q, jr.body_b, jr.point_b);
        const int o = Offset(jr.body_a);
        s_a = o < 0 ? p_b
                    : Eigen::Vector2d(Eigen::Rotation2Dd(-Angle(q, jr.body_a)) *
                                      (p_b - Eigen::Vector2d(q[o], q[o + 1])));
      }
      PointJacobian(q, jr.body_a, s_a, ja, angle_a);
      PointJacobian(q, jr.body_b, jr.point_b, jb, angle_b);
      jb -= ja;  // J_b - J_a: virtual displacement of b's joint point relative to a's
      angle_b -= angle_a;
      const int r = jr.first_row;
      switch (jr.kind) {
        case JointKind::kRevolute:
          b.middleRows(r, 2) = jb;
          break;
        case JointKind::kFixed:
          b.middleRows(r, 2) = jb;
          b.row(r + 2) = angle_b.transpose();
          break;
        case JointKind::kPrismatic:
        case JointKind::kPointOnLine: {
          const Eigen::Vector2d axis = Eigen::Rotation2Dd(Angle(q, jr.body_a)) * jr.axis_a;
          const Eigen::Vector2d normal(-axis.y(), axis.x());
          b.row(r) = normal.transpose() * jb;
          if (jr.kind == JointKind::kPrismatic) b.row(r + 1) = angle_b.transpose();
          break;
        }
        case JointKind::kDistance: {
          const Eigen::Vector2d u =
              (Point(q, jr.body_b, jr.point_b) - Point(q, jr.body_a, jr.point_a)).normalized();
          b.row(r) = u.transpose() * jb;
          break;
        }
        default:
          break;
      }
    }
  }

  const ModelStructure& structure;
  bool spatial = false;
  int n, m;
  Matrix pa = Matrix(3, 0), pb, wa, wb;
  std::vector<JointRows> joints;
  Matrix b, ja, jb;
  Vector angle_a, angle_b, residual, work_n;
  Matrix bbt;
  Eigen::LLT<Matrix> bbt_llt;
  Vector f35, f37, f38, rhs_m;
  Matrix t_bd;
  Eigen::PartialPivLU<Matrix> t_lu;
  Vector solution;
  Eigen::LLT<Matrix> mass_llt;
  Matrix m_inv, identity, m_inv_bt, dm;
};

std::string JointReactions::CheckApplicable(const Problem& problem) {
  if (!problem.structure) return "reactions need the model structure (which rows each joint owns)";
  const ModelStructure& s = *problem.structure;
  const bool spatial = s.model.dimension == 3;
  if (spatial && s.bodies.empty())
    return "reactions: spatial B (32) is built from body blocks (x, y, z, e) only";
  // Body blocks B (32) can differentiate (relative coordinates are checked per joint below).
  const std::string bodies = s.bodies.empty() ? std::string() : BodyJacobiansUnsupported(s);
  if (!bodies.empty()) return "reactions: " + bodies;
  int rows = 0;
  for (const ConstraintRows& r : s.rows) {
    rows += r.num_rows;
    if (r.owner != ConstraintRows::Owner::kJoint) continue;  // B row = its constraint row
    const JointKind kind = s.model.joints[r.index].kind;
    if ((spatial ? SpatialComponents(kind) : PlanarComponents(kind)) != r.num_rows)
      return "reactions: joint '" + r.name + "' of a kind B (32) does not cover";
    if (!spatial && s.bodies.empty() && !s.planar_body_jacobian)
      return "reactions: q is neither body blocks nor offers planar_body_jacobian";
    if (!spatial && s.bodies.empty() && NeedsGeometry(kind))
      return "reactions: joint '" + r.name + "' needs body positions in relative coordinates";
  }
  if (rows != problem.m()) return "reactions: the structure does not own every row of Phi";
  return {};
}

std::vector<std::string> JointReactions::SeriesNames(const Problem& problem) {
  std::vector<std::string> names;
  const ModelStructure& s = *problem.structure;
  const bool spatial = s.model.dimension == 3;
  for (const char* formula : kFormulas)
    for (const ConstraintRows& r : s.rows) {
      for (int c = 0; c < r.num_rows; ++c) {
        std::string component;
        if (r.owner == ConstraintRows::Owner::kJoint) {
          const JointKind kind = s.model.joints[r.index].kind;
          component = spatial ? SpatialComponentName(kind, c) : ComponentName(kind, c);
        } else {  // a driver's effort, a body's gauge multiplier (not a physical force)
          component = (r.owner == ConstraintRows::Owner::kDriver ? "effort" : "gauge") +
                      (r.num_rows > 1 ? std::to_string(c + 1) : std::string());
        }
        std::string name = r.name;
        for (char& ch : name)
          if (ch == ' ' || ch == '\'' || ch == ',') ch = '_';
        names.push_back("reaction_" + name + "_" + component + "_" + formula);
      }
    }
  return names;
}

JointReactions::JointReactions(const Problem& problem) : impl_(std::make_unique<Impl>(problem)) {}
JointReactions::~JointReactions() = default;

double JointReactions::Compute(PartitionedEquations& eq, const Partition& partition,
                               const Vector& q, const Vector& /*q_dot*/, const Vector& q_ddot,
                               Eigen::Ref<Vector> out) {
  Impl& w = *impl_;
  const int n = w.n, m = w.m;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  w.Build(q, eq.phi_q());
  const Matrix& mass = eq.mass();
  w.residual.noalias() = mass * q_ddot;
  w.residual -= eq.forces();  // M q'' - h: the total reaction, B^T f (32)

  // (38): least squares on the n rows of B^T f = M q'' - h.
  w.bbt.noalias() = w.b * w.b.transpose();
  w.bbt_llt.compute(w.bbt);
  w.rhs_m.noalias() = w.b * w.residual;
  if (w.bbt_llt.info() == Eigen::Success) {
    w.f38 = w.bbt_llt.solve(w.rhs_m);
  } else {
    w.f38.setConstant(nan);
  }

  // (37): (T_bd M)^T [f; 0] = [B^T, M D^T] [f; z] = M q'' - h; needs no M^-1.
  const Matrix& d = eq.kinematics().d();
  if (d.rows() + m == n && static_cast<int>(partition.dependent.size()) == m) {
    w.t_bd.leftCols(m) = w.b.transpose();
    w.dm.noalias() = d * mass;
    w.t_bd.rightCols(n - m) = w.dm.transpose();
    w.t_lu.compute(w.t_bd);
    w.solution = w.t_lu.solve(w.residual);
    w.f37 = w.solution.head(m);
  } else {
    w.f37.setConstant(nan);  // redundant constraints: T_bd M is not square
  }

  // (35): needs M^-1 (NaN for a singular M). An exactly singular M (Euler parameters, a
  // massless coordinate) factors with rounding pivots ~1e-8 relative in L, so only a
  // cond(M) below 1e10 (pivot ratio 1e-5) counts as invertible.
  w.mass_llt.compute(mass);
  bool definite = w.mass_llt.info() == Eigen::Success &&
                  w.mass_llt.matrixLLT().diagonal().minCoeff() >
                      1e-5 * w.mass_llt.matrixLLT().diagonal().maxCoeff();
  if (definite) w.m_inv = w.mass_llt.solve(w.identity);
  // The pivot test alone misses an exactly singular M whose rounding pivot falls early (seen
  // on the spin top's 4 E^T J E): also ask M M^-1 = I to 1e-8.
  if (definite) {
    w.t_bd.noalias() = mass * w.m_inv;
    w.t_bd -= w.identity;
    definite = w.t_bd.cwiseAbs().maxCoeff() < 1e-8;
  }
  if (definite && w.bbt_llt.info() == Eigen::Success) {
    w.work_n = eq.xi_full();
    w.work_n.noalias() -= w.m_inv * eq.forces();  // [0; xi] - M^-1 h
    w.rhs_m.noalias() = w.b * w.work_n;
    w.m_inv_bt.noalias() = w.m_inv * w.b.transpose();
    w.bbt.noalias() = w.b * w.m_inv_bt;  // B M^-1 B^T
    w.bbt_llt.compute(w.bbt);
    w.f35 = w.bbt_llt.solve(w.rhs_m);
  } else {
    w.f35.setConstant(nan);
  }

  out.segment(0, m) = w.f35;
  out.segment(m, m) = w.f37;
  out.segment(2 * m, m) = w.f38;
  double spread = 0.0;
  const Vector* f[3] = {&w.f35, &w.f37, &w.f38};
  for (int a = 0; a < 3; ++a)
    for (int c = a + 1; c < 3; ++c)
      if (f[a]->allFinite() && f[c]->allFinite())
        spread = std::max(spread, (*f[a] - *f[c]).lpNorm<Eigen::Infinity>());
  return spread;
}

}  // namespace mbb
