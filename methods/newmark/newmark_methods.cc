// Registry entries of the Newmark family (paper 001).
#include "methods/newmark/newmark_methods.h"

#include "methods/newmark/newmark_common.h"

namespace mbb {

std::vector<MethodEntry> NewmarkMethodEntries() {
  return {
      {"central-difference-minimal",
       "central differences on a minimal-coordinate form (m = 0), explicit, h <= 2/omega_max",
       "paper 001 eqs 18, 21-22",
       true,
       false,
       {},
       MakeCentralDifferenceMinimal},
      {"newmark-index3",
       "classical index-3 Newmark on q with Lagrange multipliers, Newton on [q, lambda]",
       "paper 001 s2 Fig 1, eqs 7, 10, 28-30", true, false, NewmarkParameters::Specs(),
       MakeNewmarkIndex3},
      {"newmark-minimal", "Newmark family on a minimal-coordinate form (m = 0), Newton on a",
       "paper 001 s3 eqs 11, 13-15, 26", true, false, NewmarkParameters::Specs(),
       MakeNewmarkMinimal},
      {"tangent-newmark",
       "Newmark integrated in the tangent space of the linearised constraint manifold",
       "paper 001 s5 eqs 32-58, Fig 11", true, false, NewmarkParameters::Specs(),
       MakeTangentNewmark},
  };
}

}  // namespace mbb
