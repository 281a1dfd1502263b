// Physical joint reactions (35), (37), (38) of paper 003 through the distribution matrix B
// (32) built per joint kind (see the header).
#include "methods/partitioning/reactions.h"

#include <cmath>
#include <limits>

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

bool NeedsGeometry(JointKind kind) {
  return kind == JointKind::kPrismatic || kind == JointKind::kDistance ||
         kind == JointKind::kPointOnLine;
}

int BodyIndex(const ModelDescription& model, const std::string& name) {
  for (size_t i = 0; i < model.bodies.size(); ++i)
    if (model.bodies[i].name == name) return static_cast<int>(i);
  return -1;  // the ground
}

const char* const kFormulas[3] = {"eq35", "eq37", "eq38"};

}  // namespace

struct JointReactions::Impl {
  struct JointRows {
    JointKind kind;
    int first_row, num_rows;
    int body_a, body_b;  // -1: ground
    Eigen::Vector2d point_a, point_b, axis_a;
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
    for (const ConstraintRows& rows : structure.rows) {
      const JointDescription& j = structure.model.joints[rows.index];
      joints.push_back({j.kind, rows.first_row, rows.num_rows, BodyIndex(structure.model, j.body_a),
                        BodyIndex(structure.model, j.body_b), j.point_a.head<2>(),
                        j.point_b.head<2>(), j.axis_a.head<2>()});
    }
  }

  // Body block offset of a body (-1: ground or no blocks).
  int Offset(int body) const {
    return body < 0 || structure.bodies.empty() ? -1 : structure.bodies[body].offset;
  }

  // Jacobian of the global position of body-frame point s and the angle gradient.
  void PointJacobian(const Vector& q, int body, const Eigen::Vector2d& s, Matrix& j,
                     Vector& angle) const {
    j.setZero();
    angle.setZero();
    if (body < 0) return;
    if (structure.planar_body_jacobian) {
      structure.planar_body_jacobian(q, body, Eigen::Vector3d(s.x(), s.y(), 0.0), j, angle);
      return;
    }
    const int o = structure.bodies[body].offset;
    j(0, o) = 1.0;
    j(1, o + 1) = 1.0;
    if (structure.bodies[body].size < 3) return;  // point mass
    const double th = q[o + 2], c = std::cos(th), sn = std::sin(th);
    j(0, o + 2) = -sn * s.x() - c * s.y();  // d(R(theta) s)/dtheta
    j(1, o + 2) = c * s.x() - sn * s.y();
    angle[o + 2] = 1.0;
  }

  Eigen::Vector2d Point(const Vector& q, int body, const Eigen::Vector2d& s) const {
    const int o = Offset(body);
    if (o < 0) return s;
    const double th = structure.bodies[body].size >= 3 ? q[o + 2] : 0.0;
    return Eigen::Vector2d(q[o], q[o + 1]) + Eigen::Rotation2Dd(th) * s;
  }

  double Angle(const Vector& q, int body) const {
    const int o = Offset(body);
    return o < 0 || structure.bodies[body].size < 3 ? 0.0 : q[o + 2];
  }

  void Build(const Vector& q) {
    for (const JointRows& jr : joints) {
      PointJacobian(q, jr.body_a, jr.point_a, ja, angle_a);
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
  int n, m;
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
  if (s.model.dimension != 2) return "reactions: B (32) is built for planar joints only";
  int rows = 0;
  for (const ConstraintRows& r : s.rows) {
    if (r.owner != ConstraintRows::Owner::kJoint)
      return "reactions: row block '" + r.name + "' is not a joint's (drivers not covered)";
    const JointKind kind = s.model.joints[r.index].kind;
    if (PlanarComponents(kind) != r.num_rows)
      return "reactions: joint '" + r.name + "' of a kind B (32) does not cover";
    if (s.bodies.empty() && !s.planar_body_jacobian)
      return "reactions: q is neither body blocks nor offers planar_body_jacobian";
    if (s.bodies.empty() && NeedsGeometry(kind))
      return "reactions: joint '" + r.name + "' needs body positions in relative coordinates";
    rows += r.num_rows;
  }
  if (rows != problem.m()) return "reactions: the joints do not own every row of Phi";
  return {};
}

std::vector<std::string> JointReactions::SeriesNames(const Problem& problem) {
  std::vector<std::string> names;
  const ModelStructure& s = *problem.structure;
  for (const char* formula : kFormulas)
    for (const ConstraintRows& r : s.rows) {
      const JointKind kind = s.model.joints[r.index].kind;
      for (int c = 0; c < r.num_rows; ++c)
        names.push_back("reaction_" + r.name + "_" + ComponentName(kind, c) + "_" + formula);
    }
  return names;
}

JointReactions::JointReactions(const Problem& problem) : impl_(std::make_unique<Impl>(problem)) {}
JointReactions::~JointReactions() = default;

const Matrix& JointReactions::BuildB(const Vector& q) {
  impl_->Build(q);
  return impl_->b;
}

double JointReactions::Compute(PartitionedEquations& eq, const Partition& partition,
                               const Vector& q, const Vector& /*q_dot*/, const Vector& q_ddot,
                               Eigen::Ref<Vector> out) {
  Impl& w = *impl_;
  const int n = w.n, m = w.m;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  w.Build(q);
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

  // (35): needs M^-1 (NaN for a singular M).
  w.mass_llt.compute(mass);
  const bool definite = w.mass_llt.info() == Eigen::Success &&
                        w.mass_llt.matrixLLT().diagonal().minCoeff() >
                            1e-7 * w.mass_llt.matrixLLT().diagonal().maxCoeff();
  if (definite && w.bbt_llt.info() == Eigen::Success) {
    w.m_inv = w.mass_llt.solve(w.identity);
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
