// Scenes of reduced-coordinate articulations: links in joint coordinates on a fixed base at the origin.
#ifndef SINEW_SCENES_ARTICULATIONS_H
#define SINEW_SCENES_ARTICULATIONS_H

#include "scenes/common.h"

#ifdef __cplusplus
extern "C" {
#endif

// A revolute link of `mass` kg whose centre of mass is `arm` m along +x from its inbound joint, hinged
// about world y when its parent's frame is aligned with the world; its joint sits at joint_in_parent in
// the parent's frame.
sn_link_def scene_hinge_link(int parent, sn_vec3 joint_in_parent, double mass, double arm, sn_mat33 inertia);

// A pendulum: one link hinged about world y at the origin with a point-like bob (inertia 4e-5 kg*m^2 about
// its centre) `length` m along +x, released horizontally (q = 0). Positive q turns the bob down.
sn_error scene_artic_pendulum(sn_world* world, double length, double mass, sn_articulation_id* pendulum);

// The hanging chain of joints.h's scene_hinge_chain as an articulation: link 0 is the base, links 1..n
// the boxes (0.1 x 0.1 x 0.5 m, 1 kg), each hinged about y to the one before at its end, each link's frame
// at its box centre; released horizontally. midpoint: sn_articulation_def.midpoint_velocity_terms.
sn_error scene_artic_chain(sn_world* world, int n, bool midpoint, sn_articulation_id* chain);

// The driven arm: SCENE_ARM_LINKS links of 0.3 m and 2 kg laid along +x from the base, hinge axes
// alternating y, z, y, ... (the root about y), each with an implicit PD drive (kp = 1e6 N*m/rad,
// kd = 1e3 N*m*s/rad) towards 0.5 rad from 0.
#define SCENE_ARM_LINKS 7
#define SCENE_ARM_LENGTH 0.3
#define SCENE_ARM_MASS 2.0
#define SCENE_ARM_KP 1e6
#define SCENE_ARM_KD 1e3
#define SCENE_ARM_TARGET 0.5
sn_error scene_arm(sn_world* world, sn_articulation_id* arm);
// The root joint's exact static deflection (rad) with every joint at its target: the gravity torque
// about the root axis divided by kp, each link's centre of mass walked out from the joint rotations.
double scene_arm_root_sag(void);

#ifdef __cplusplus
}
#endif

#endif
