// The two planar configurations of paper 004 s4, Fig 3, eqs (33)-(36): point masses i
// (mass m_i, default 0: the rank-deficient case) and j (m_j) in the plane, i on the ground,
// j on i. Formulation joint-tree only (the relative coordinates of the paper).
//
//   zero_mass_chain_a (upper plot): i free in the plane (q_i = p_i, J_i = H_i = -I),
//     spring-dampers (c_ix, d_ix) along x and (c_iy, d_iy) along y to the ground; j free
//     relative to i (q_j = p_j - p_i - (l, 0)), spring-damper (c_jx, d_jx) along x between
//     i and j, nothing along y: eqs (33); with m_i = 0 the formalism gives (34), (35).
//   zero_mass_chain_b (lower plot): the same i; j on i by the scalar constraint
//     p_jx = p_ix + l (a prismatic joint along y, q_j = p_jy - p_iy, J_j = -(0, 1)^T), no
//     force on j: eqs (36); Mbar_i = diag(m_i + m_j, m_i).
//
// The paper gives no spring or damper data; the suite's choice (documented in
// docs/problems.md): m_j = 1 kg, c_ix = c_iy = 10 N/m, d_ix = d_iy = 1 N s/m,
// c_jx = 1 N/m, d_jx = 0.1 N s/m, l = 1 m, 10 s. Every massless direction of i is damped
// (index 1, section 3.5). The model layer has translational spring-dampers between points
// only: the ground springs are anchored 100 m away along their axis (rest length 100 m), so
// they act along x and y to O(displacement / 100); the i-j spring acts along the line i-j.
// Initial state: j displaced 0.2 m along x (chain a) or i displaced (0.1, 0.05) m
// (chain b), on the slow manifold of the m_i = 0 model (f_i's massless components vanish).
#include "problems/catalogue/catalogue_entries.h"
#include "problems/catalogue/model_helpers.h"
#include "problems/model/model_problem.h"

namespace mbb {
namespace {

constexpr double kAnchor = 100.0;  // ground spring anchors and rest length, m

BodyDescription PointMass(const std::string& name, double mass, double x, double y) {
  BodyDescription b;
  b.name = name;
  b.kind = BodyKind::kPointMass;
  b.mass = mass;
  b.position = P(x, y);
  return b;
}

Problem Build(const ParameterSet& p, bool chain_b) {
  const double mi = p.GetDouble("m_i"), mj = p.GetDouble("m_j");
  if (mi != 0.0) RequirePositive(mi, "m_i");
  RequirePositive(mj, "m_j");
  const double cix = p.GetDouble("c_ix"), dix = p.GetDouble("d_ix");
  const double ciy = p.GetDouble("c_iy"), diy = p.GetDouble("d_iy");
  const double l = p.GetDouble("l");
  RequirePositive(l, "l");
  ModelDescription m;
  m.title = chain_b ? "zero-mass chain, Fig 3 lower" : "zero-mass chain, Fig 3 upper";
  m.source = chain_b ? "004 s4 eq 36" : "004 s4 eqs 33-35";
  m.dimension = 2;
  m.formulation = "joint-tree";
  m.forces.push_back(SpringDamper("c_ix_d_ix", "ground", P(-kAnchor, 0), "i", cix, dix, kAnchor));
  m.forces.push_back(SpringDamper("c_iy_d_iy", "ground", P(0, -kAnchor), "i", ciy, diy, kAnchor));
  if (!chain_b) {
    const double cjx = p.GetDouble("c_jx"), djx = p.GetDouble("d_jx");
    const double stretch = 0.2;
    // On the slow manifold of m_i = 0: c_ix p_ix = c_jx (stretch - p_ix), (34) at rest.
    const double pix = cjx * stretch / (cix + cjx);
    m.bodies = {PointMass("i", mi, pix, 0.0), PointMass("j", mj, l + stretch, 0.0)};
    m.joints = {Joint("i_free", JointKind::kPlanar, "ground", P(0, 0), "i", P(0, 0)),
                Joint("j_free", JointKind::kPlanar, "i", P(l, 0), "j", P(0, 0))};
    m.forces.push_back(SpringDamper("c_jx_d_jx", "i", P(0, 0), "j", cjx, djx, l));
  } else {
    const double pix = 0.1, piy = 0.05;
    m.bodies = {PointMass("i", mi, pix, piy), PointMass("j", mj, pix + l, 0.0)};
    m.bodies[0].velocity = P(0.0, -ciy / diy * piy);  // (28b) at t0: 0 = -d p' - c p
    JointDescription slide = Joint("j_on_i", JointKind::kPrismatic, "i", P(l, 0), "j", P(0, 0));
    slide.axis_a = P(0, 1);
    m.joints = {Joint("i_free", JointKind::kPlanar, "ground", P(0, 0), "i", P(0, 0)), slide};
  }
  m.outputs = {Output("pi_x", OutputKind::kPointX, "i"), Output("pi_y", OutputKind::kPointY, "i"),
               Output("pj_x", OutputKind::kPointX, "j"), Output("pj_y", OutputKind::kPointY, "j")};
  m.t_end = 10.0;
  m.h_default = 1e-3;
  m.default_methods = {"recursive-zero-mass"};
  return BuildModelProblem(m, chain_b ? "zero_mass_chain_b" : "zero_mass_chain_a", p);
}

std::vector<ParameterSpec> CommonParameters() {
  return {{"m_i", "0", "mass of body i, kg (0: rank-deficient)", {}},
          {"m_j", "1", "mass of body j, kg", {}},
          {"c_ix", "10", "spring i-ground along x, N/m", {}},
          {"d_ix", "1", "damper i-ground along x, N s/m", {}},
          {"c_iy", "10", "spring i-ground along y, N/m", {}},
          {"d_iy", "1", "damper i-ground along y, N s/m", {}},
          {"l", "1", "x distance from i to j, m", {}},
          {"formulation", "joint-tree", "coordinate set (joint-tree only)", {"joint-tree"}}};
}

}  // namespace

ProblemEntry ZeroMassChainAEntry() {
  auto params = CommonParameters();
  params.push_back({"c_jx", "1", "spring i-j along x, N/m", {}});
  params.push_back({"d_jx", "0.1", "damper i-j along x, N s/m", {}});
  return {"zero_mass_chain_a",
          "two point masses, i (m_i = 0) free on springs, j free relative to i (Fig 3 upper)",
          "004 s4 eqs 33-35", params, [](const ParameterSet& p) { return Build(p, false); }};
}

ProblemEntry ZeroMassChainBEntry() {
  return {"zero_mass_chain_b",
          "two point masses, i (m_i = 0) on springs, j on i with p_jx = p_ix + l (Fig 3 lower)",
          "004 s4 eq 36", CommonParameters(), [](const ParameterSet& p) { return Build(p, true); }};
}

}  // namespace mbb
