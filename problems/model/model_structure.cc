// The ModelStructure pieces the model layer builds: the rows each joint, driver or body
// owns (filled by the formulations through AppendRows) and the kinematic tree.
#include "problems/model/model_structure.h"

#include <deque>

namespace mbb {

std::string JointKindName(JointKind kind) {
  switch (kind) {
    case JointKind::kRevolute:
      return "revolute";
    case JointKind::kPrismatic:
      return "prismatic";
    case JointKind::kSpherical:
      return "spherical";
    case JointKind::kUniversal:
      return "universal";
    case JointKind::kCylindrical:
      return "cylindrical";
    case JointKind::kPlanar:
      return "planar";
    case JointKind::kFixed:
      return "fixed";
    case JointKind::kDistance:
      return "distance";
    case JointKind::kPointOnLine:
      return "point_on_line";
  }
  return "?";
}

std::vector<std::string> JointRowNames(const JointDescription& joint, int rows) {
  std::vector<std::string> names;
  for (int r = 0; r < rows; ++r)
    names.push_back("joint '" + joint.name + "' (" + JointKindName(joint.kind) + ") row " +
                    std::to_string(r + 1));
  return names;
}

void AppendRows(std::vector<ConstraintRows>& rows, ConstraintRows::Owner owner, int index,
                const std::string& name, const std::vector<std::string>& row_names) {
  ConstraintRows r;
  r.owner = owner;
  r.index = index;
  r.name = name;
  r.first_row = rows.empty() ? 0 : rows.back().first_row + rows.back().num_rows;
  r.num_rows = static_cast<int>(row_names.size());
  r.row_names = row_names;
  rows.push_back(std::move(r));
}

std::vector<JointEnds> ResolveJointEnds(const ModelDescription& model) {
  std::vector<JointEnds> ends(model.joints.size());
  const BodyIndex index(model);
  for (size_t k = 0; k < ends.size(); ++k) {
    const std::string what = "joint '" + model.joints[k].name + "'";
    ends[k].body_a = index.Find(model.joints[k].body_a, what);
    ends[k].body_b = index.Find(model.joints[k].body_b, what);
  }
  return ends;
}

KinematicTree BuildKinematicTree(const ModelDescription& model) {
  const int bodies = static_cast<int>(model.bodies.size());
  const int joints = static_cast<int>(model.joints.size());
  // Joint ends as body indices (-1: ground).
  std::vector<int> end_a(joints), end_b(joints);
  // The joints at each body (slot 0: the ground), in model order: the breadth-first
  // search below visits them as a scan of all joints would, in O(joints) overall.
  std::vector<std::vector<int>> incident(bodies + 1);
  const std::vector<JointEnds> ends = ResolveJointEnds(model);
  for (int k = 0; k < joints; ++k) {
    end_a[k] = ends[k].body_a;
    end_b[k] = ends[k].body_b;
    incident[end_a[k] + 1].push_back(k);
    if (end_b[k] != end_a[k]) incident[end_b[k] + 1].push_back(k);
  }
  KinematicTree tree;
  tree.parent.assign(bodies, -1);
  tree.parent_joint.assign(bodies, -1);
  std::vector<char> reached(bodies, 0), in_tree(joints, 0);
  // Breadth-first from `root` (-1: the ground) over the joints in model order.
  auto grow = [&](int root) {
    std::deque<int> queue = {root};
    while (!queue.empty()) {
      const int body = queue.front();
      queue.pop_front();
      for (const int k : incident[body + 1]) {
        if (in_tree[k]) continue;
        const int other = end_a[k] == body ? end_b[k] : end_a[k];
        if (other < 0 || reached[other]) continue;
        reached[other] = 1;
        in_tree[k] = 1;
        tree.parent[other] = body;
        tree.parent_joint[other] = k;
        tree.topological_order.push_back(other);
        queue.push_back(other);
      }
    }
  };
  grow(-1);
  for (int b = 0; b < bodies; ++b) {
    if (reached[b]) continue;
    reached[b] = 1;
    tree.topological_order.push_back(b);
    grow(b);
  }
  for (int k = 0; k < joints; ++k)
    if (!in_tree[k]) tree.cut_joints.push_back(k);
  return tree;
}

}  // namespace mbb
