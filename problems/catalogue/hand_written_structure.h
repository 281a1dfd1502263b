// The ModelStructure of a hand-written catalogue problem: the mechanism its equations
// describe, as a ModelDescription (bodies, joints, forces, its stated pose), so that methods
// and references that need the mechanism (the Simbody peer, the analytic references) read it
// from the problem instead of restating it. The formulation is "" (the equations are the
// entry's own); body coordinate blocks only where q really is the bodies' (x, y, theta) /
// (x, y) / (x, y, z, e) layout, one body after the other in model order.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "problems/model/body_motion.h"
#include "problems/model/model_structure.h"

namespace mbb {

/// The rows of Phi one element owns, named "<name> row k".
inline ConstraintRows OwnedRows(ConstraintRows::Owner owner, int index, const std::string& name,
                                int first_row, int num_rows) {
  ConstraintRows rows;
  rows.owner = owner;
  rows.index = index;
  rows.name = name;
  rows.first_row = first_row;
  rows.num_rows = num_rows;
  for (int r = 0; r < num_rows; ++r)
    rows.row_names.push_back(name + " row " + std::to_string(r + 1));
  return rows;
}

/// A tree given by each body's parent (-1: ground) and joint; bodies listed parents first.
inline KinematicTree ChainTree(std::vector<int> parent, std::vector<int> parent_joint,
                               std::vector<int> cut_joints = {}) {
  KinematicTree tree;
  tree.parent = std::move(parent);
  tree.parent_joint = std::move(parent_joint);
  for (size_t i = 0; i < tree.parent.size(); ++i) tree.topological_order.push_back(int(i));
  tree.cut_joints = std::move(cut_joints);
  return tree;
}

/// The structure of a hand-written problem; `body_blocks`: q is the bodies' blocks.
inline std::shared_ptr<ModelStructure> HandWrittenStructure(ModelDescription model,
                                                            bool body_blocks,
                                                            std::vector<ConstraintRows> rows,
                                                            KinematicTree tree) {
  auto s = std::make_shared<ModelStructure>();
  if (body_blocks) {
    int offset = 0;
    for (const BodyDescription& b : model.bodies) {
      const bool rigid = b.kind == BodyKind::kRigid;
      const BodyLayout layout =
          model.dimension == 2 ? (rigid ? BodyLayout::kPlanarPose : BodyLayout::kPlanarPoint)
                               : (rigid ? BodyLayout::kEulerParameters : BodyLayout::kSpatialPoint);
      const int size = BodyLayoutSize(layout);
      s->bodies.push_back({b.name, offset, size, layout});
      offset += size;
    }
  }
  s->joint_ends = ResolveJointEnds(model);
  s->model = std::move(model);
  s->rows = std::move(rows);
  s->tree = std::move(tree);
  return s;
}

}  // namespace mbb
