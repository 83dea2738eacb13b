// Scenes with shapes and contacts: the eight contact benchmark scenes C1..C8 exactly as
// shared/bench/contact-scenes.md defines them, and the simple contact cases the contact tests start from
// (a box resting, on an incline, sliding, a ball dropped).
//
// Common to the C scenes: gravity (0, 0, -9.81) m/s^2 (scene_world_def), everything at rest, friction
// SCENE_CONTACT_FRICTION and restitution 0 unless the scene says otherwise, solid inertias (box m (2h)^2 / 6
// per axis, sphere 2/5 m r^2, capsule a solid cylinder and two solid hemispheres: sn_body_set_mass_from_shapes
// at the density m / V gives exactly these). Ground planes belong to the world (null body).
#ifndef SINEW_SCENES_CONTACTS_H
#define SINEW_SCENES_CONTACTS_H

#include "scenes/common.h"

#ifdef __cplusplus
extern "C" {
#endif

// The friction coefficient of every contact scene unless it says otherwise.
#define SCENE_CONTACT_FRICTION 0.5

// A material of this friction and restitution, rigid.
sn_material scene_material(double friction, double restitution);

// A static plane of the world through the origin with this (unit) normal.
sn_error scene_ground(sn_world* world, sn_vec3 normal, sn_material material, sn_shape_id* plane);

// A dynamic box of half-extent `half` (m) on every side, `mass` kg (solid inertia), at `pose`, with one
// box shape of this material. shape may be NULL.
sn_error scene_box(sn_world* world, sn_transform pose, double half, double mass, sn_material material, sn_body_id* body,
				   sn_shape_id* shape);
// A dynamic solid sphere of radius r (m), mass kg, centred at `at`.
sn_error scene_ball(sn_world* world, sn_vec3 at, double radius, double mass, sn_material material, sn_body_id* body,
					sn_shape_id* shape);

// ---- the contact benchmark scenes (shared/bench/contact-scenes.md) ------------------------------------

// C1: plane z = 0; a 0.2 m cube of 1 kg with its centre at z = 0.1 (touching, no gap). dt 1 ms, 2 s.
sn_error scene_c1_resting_box(sn_world* world, sn_body_id* box);

// C2: a plane through the origin with normal (sin 30, 0, cos 30) (downhill (cos 30, 0, -sin 30)); a 0.2 m
// cube of 1 kg rotated 30 degrees about +y, face down, centre 0.1 m along the normal; the friction of
// both shapes `friction` (0.7: stays; 0.3: slides at g (sin 30 - mu cos 30) = SCENE_C2_SLIDE_ACCEL).
#define SCENE_C2_ANGLE (SN_PI / 6.0)
#define SCENE_C2_SLIDE_ACCEL 2.35629 // m/s^2, mu = 0.3
sn_error scene_c2_incline(sn_world* world, double friction, sn_body_id* box);
// The unit downhill direction of C2.
sn_vec3 scene_c2_downhill(void);

// C3: plane z = 0; a sphere of radius 0.1 m and 1 kg with its centre at z = 1.1 (its bottom 1 m up), the
// restitution of both shapes `restitution` (0.5: first rebound apex e^2 1 m = 0.25 m). dt 1 ms, 1.2 s.
sn_error scene_c3_bounce(sn_world* world, double restitution, sn_body_id* ball);

// C4: a plane with normal (sin 20, 0, cos 20); a solid sphere of radius 0.1 m, 1 kg, touching at rest;
// friction 1. Rolling without slipping: a = (5/7) g sin 20 = SCENE_C4_ROLL_ACCEL. dt 1 ms, 2 s.
#define SCENE_C4_ANGLE (SN_PI / 9.0)
#define SCENE_C4_ROLL_ACCEL 2.39658 // m/s^2
sn_error scene_c4_rolling_sphere(sn_world* world, sn_body_id* ball);

// C5: plane z = 0; ten 0.2 m cubes of 1 kg stacked with centres at (0, 0, 0.1 + 0.2 i), no gaps.
#define SCENE_C5_BOXES 10
sn_error scene_c5_stack(sn_world* world, sn_body_id boxes[SCENE_C5_BOXES]);

// C6: plane z = 0; a pyramid in the x-z plane, row k = 0..19 of 20 - k cubes (0.2 m, 1 kg) at
// x = (i - (n - 1) / 2) 0.2, z = 0.1 + 0.2 k: 210 boxes, side faces touching, each resting half on each of
// the two below. boxes[] in row order.
#define SCENE_C6_ROWS 20
#define SCENE_C6_BOXES 210
sn_error scene_c6_pyramid(sn_world* world, sn_body_id boxes[SCENE_C6_BOXES]);

// C7: plane z = 0 as the floor and four static wall boxes 0.1 m thick, 1 m high (z in [0, 1]), their inner
// faces at x = +-0.75 and y = +-0.75 (each 1.7 m long, so the corners are closed); 1000 spheres of radius
// 0.05 m, 0.1 kg on a 10 x 10 x 10 grid x = (i - 4.5) 0.12 + jx, y = (j - 4.5) 0.12 + jy, z = 0.30 + 0.12 k
// with the scene file's deterministic jitter (scene_c7_jitter). spheres[] by index 100 k + 10 j + i.
#define SCENE_C7_SPHERES 1000
#define SCENE_C7_RADIUS 0.05
#define SCENE_C7_INNER 0.75 // m, the walls' inner faces
sn_error scene_c7_spheres(sn_world* world, sn_body_id spheres[SCENE_C7_SPHERES]);
// The jitter (m) of sphere idx with salt 1 (x) or 2 (y): h = idx 2654435761 + salt 40503; h ^= h >> 15;
// h *= 2246822519; h ^= h >> 13 (32-bit wrapping); 0.01 ((h mod 10001) / 10000 - 0.5).
double scene_c7_jitter(uint32_t index, uint32_t salt);

// C8: plane z = 0; 100 chains on a 10 x 10 grid (chain centres x = (a - 4.5) 1.3, y = (b - 4.5) 0.15) lying
// along x at z = 0.5. Each chain: 10 capsule links of radius 0.02 m and core length 0.1 m (the joint
// spacing; 0.14 m overall), 0.1 kg each; the hinge between link l - 1 and l at their shared end, about y
// for odd l and about z for even l; no limits, no damping; link 0 floating. Adjacent links do not collide;
// every other pair does, non-adjacent links of one chain included.
#define SCENE_C8_CHAINS 100
#define SCENE_C8_LINKS 10
#define SCENE_C8_RADIUS 0.02
#define SCENE_C8_SPACING 0.1
#define SCENE_C8_LINK_MASS 0.1
// As articulations (self-collision on: a link never collides with its parent). chains[] by 10 a + b.
sn_error scene_c8_chains_articulated(sn_world* world, sn_articulation_id chains[SCENE_C8_CHAINS]);
// As maximal bodies with hinges (jointed links do not collide: collide_connected false). bodies[] and
// joints[] chain by chain (chain 10 a + b, its links in order; joints[9 c + l - 1] joins links l - 1, l).
sn_error scene_c8_chains_maximal(sn_world* world, sn_body_id bodies[SCENE_C8_CHAINS * SCENE_C8_LINKS],
								 sn_joint_id joints[SCENE_C8_CHAINS * (SCENE_C8_LINKS - 1)]);

// ---- the gripper (issue 13) ----------------------------------------------------------------------------
// The gripper of bench/peers/scenes.c, the definition the peer engines build, as a Sinew articulation:
//   ground   plane z = 0
//   box      a maximal body: 0.1 m cube (half-extent 0.05), 0.5 kg, centre (0, 0, 0.05), resting on the ground
//   base     link 0, fixed at the origin, no shape
//   palm     link 1: box half-extents (0.12, 0.03, 0.02), 1 kg, centre (0, 0, 0.14); a prismatic joint along
//            +z on the base (the lift, dof 0) with a drive: stiffness 1e4 N/m, damping 300 N s/m, force limit
//            100 N, target scene_gripper_lift_target(t)
//   fingers  links 2 (left, at -x) and 3 (right, at +x): boxes half-extents (0.01, 0.025, 0.05), 0.1 kg,
//            centres (-+0.08, 0, 0.065) (inner faces 0.02 m from the box's sides); each a prismatic joint
//            on the palm along its closing direction (+x for the left finger, dof 1; -x for the right,
//            dof 2); the left one driven (stiffness 1e4 N/m, damping 20 N s/m, force limit 20 N, target
//            0.04 m: past the box's side, so the drive saturates and squeezes), the right one a mimic
//            joint of the left (q_right - q_left = 0)
//   friction 0.5 everywhere, restitution 0; the palm and fingers do not collide with each other (the
//            articulation's self-collision is off). Every link's frame sits at its centre of mass and
//            stays aligned with the world axes.
// The script: fingers close from t = 0; the lift's target rises 0.2 m over [LIFT_START, LIFT_END] and
// holds HOLD s after it.
#define SCENE_GRIPPER_BOX_MASS 0.5    // kg
#define SCENE_GRIPPER_PALM_MASS 1.0   // kg
#define SCENE_GRIPPER_FINGER_MASS 0.1 // kg, each
#define SCENE_GRIPPER_LIFT 0.2        // m
#define SCENE_GRIPPER_LIFT_START 0.5
#define SCENE_GRIPPER_LIFT_END 1.5
#define SCENE_GRIPPER_HOLD 5.0 // s
#define SCENE_GRIPPER_LINKS 4
enum
{
	SCENE_GRIPPER_LIFT_DOF = 0,   // the palm's prismatic joint (link 1), m
	SCENE_GRIPPER_FINGER_DOF = 1, // the left finger's, driven (link 2), m
	SCENE_GRIPPER_MIMIC_DOF = 2,  // the right finger's, the mimic (link 3), m
};
typedef struct scene_gripper
{
	sn_articulation_id articulation;
	sn_mimic_id mimic;
	sn_body_id palm; // link 1's body
	sn_body_id box;
} scene_gripper;
sn_error scene_gripper_build(sn_world* world, scene_gripper* out);
// The lift's target (m) at time t (s): 0 until LIFT_START, rising linearly to LIFT at LIFT_END, then held.
double scene_gripper_lift_target(double t);

// ---- simple contact cases ------------------------------------------------------------------------------

// A cube of half-extent `half` and 1 kg resting on the plane z = 0 (centre at z = half), on the world's
// plane, both of this material.
sn_error scene_resting_box(sn_world* world, double half, sn_material material, sn_body_id* box);
// A 0.2 m cube of 1 kg on flat ground (plane z = 0) moving along +x at v0 (m/s): with friction mu it stops
// after v0^2 / (2 mu g).
sn_error scene_sliding_box(sn_world* world, double v0, double friction, sn_body_id* box);
// A ball of radius 0.1 m, 1 kg, dropped with its bottom `height` m above the plane z = 0.
sn_error scene_dropped_ball(sn_world* world, double height, double restitution, sn_body_id* ball);

// A floating robot resting on the ground (plane z = 0, friction 0.5 everywhere, restitution 0): link 0 a
// solid box slab of half-extents `half` (m, in the base frame) and base_mass kg, its base frame at
// (0, 0, 0.05) turned by `orientation` (so a slab 0.1 m thick along the world's z touches the plane);
// link 1 an arm of 1 kg (inertia diag(0.01, 0.02, 0.015) kg*m^2 about its centre, 0.3 m out along x from
// its hinge) on a hinge about the base frame's y axis at (0.1, 0, 0), thrown at 2 rad/s towards a stop at
// 0.05 rad (limit [-1, 0.05] rad) and driven (kp 10 N*m/rad, kd 0.1 N*m*s/rad) towards 1 rad, beyond it.
// base may be NULL.
sn_error scene_slab_robot(sn_world* world, double base_mass, sn_vec3 half, sn_quat orientation,
						  sn_articulation_id* robot, sn_body_id* base);

#ifdef __cplusplus
}
#endif

#endif
