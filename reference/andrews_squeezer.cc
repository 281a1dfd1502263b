// Published reference for andrews_squeezer: the Test Set for IVP Solvers value of y(0.03)
// (positions y1..y7), computed with PSIDE, rtol = atol = 1e-14 on a Cray C90 (provenance
// in reference/andrews_squeezer/source.md s2.6 and README.md, with the copied numbers).
// That reference lies on the constraint manifold but equals the true trajectory at about
// t = 0.03 + 1.0e-12 s (README s2.6: independent RK4 runs with 48000/96000 steps), so it
// supports positions to about 1e-9 relative: we claim 9 digits.
#include "reference/reference.h"

namespace mbb {

std::optional<Reference> AndrewsReference(const Problem& problem) {
  // The reference holds the seven angles, i.e. q of the `angles` form only.
  if (problem.id != "andrews_squeezer" || problem.parameters.count("form") == 0 ||
      problem.parameters.at("form") != "angles")
    return std::nullopt;
  Reference ref;
  ref.id = "andrews_squeezer/ivp_testset_pside";
  ref.provenance =
      "Test Set for IVP Solvers, problem andrews, y(0.03) by PSIDE rtol=atol=1e-14 (Cray C90); "
      "phase error ~1e-12 s, positions to ~1e-9 relative (reference/andrews_squeezer/source.md)";
  ref.digits = 9.0;
  ref.t_max = 0.03;
  ref.times = {0.03};
  Vector q(7);
  q << 0.1581077119629904e+2, -0.1575637105984298e+2, 0.4082224013073101e-1, -0.5347301163226948e+0,
      0.5244099658805304e+0, 0.5347301163226948e+0, 0.1048080741042263e+1;
  ref.positions = {q};
  return ref;
}

}  // namespace mbb
