// The problem catalogue: the one list of registered problems, sorted by id.
// To add a problem: write problems/catalogue/<id>.cc with an <Id>Entry() factory, declare it
// in catalogue_entries.h and add it here (docs/adding-a-problem.md).
#include <algorithm>

#include "problems/catalogue/catalogue_entries.h"
#include "problems/core/consistent_initial_conditions.h"

namespace mbb {

const std::vector<ProblemEntry>& ProblemCatalogue() {
  static const std::vector<ProblemEntry> catalogue = [] {
    std::vector<ProblemEntry> entries = {
        AndrewsSqueezerEntry(),
        BricardEntry(),
        CylindricalPairEntry(),
        DoubleFourBarEntry(),
        DoublePendulumEntry(),
        FlyballGovernorEntry(),
        FourBarEntry(),
        GyroTopEntry(),
        NFourBarEntry(),
        PhysicalPendulumEntry(),
        PlanarPairEntry(),
        PlanarPendulumEntry(),
        SimplePendulumIftommEntry(),
        SixBodyLinkageEntry(),
        SliderCrank3dEntry(),
        SmallMassOscillatorEntry(),
        SpatialPendulumEntry(),
        SpinTopEntry(),
        StiffPendulumEntry(),
        ZeroMassChainAEntry(),
        ZeroMassChainBEntry(),
        PendulumChainEntry(),
    };
    std::sort(entries.begin(), entries.end(),
              [](const auto& a, const auto& b) { return a.id < b.id; });
    return entries;
  }();
  return catalogue;
}

const ProblemEntry& FindProblem(const std::string& id) {
  for (const auto& entry : ProblemCatalogue())
    if (entry.id == id) return entry;
  std::string known;
  for (const auto& entry : ProblemCatalogue()) known += (known.empty() ? "" : ", ") + entry.id;
  throw InputError("unknown problem '" + id + "' (known: " + known + ")");
}

Problem BuildProblem(const std::string& id, const ParameterSet& params) {
  const ProblemEntry& entry = FindProblem(id);
  params.Validate(entry.parameters, "problem " + id);
  // The builder reads every declared default from here (ParameterSet::GetDouble(key)): each
  // is written once, in the entry's spec, and is what the result records.
  Problem problem = entry.build(ParameterSet(params.Resolved(entry.parameters)));
  problem.id = entry.id;
  problem.title = entry.summary;
  problem.source = entry.source;
  problem.parameters = params.Resolved(entry.parameters);
  CheckInitialConditions(problem);
  return problem;
}

}  // namespace mbb
