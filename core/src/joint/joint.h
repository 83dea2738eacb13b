// Internal joint record, the joint frame kinematics every type shares, and the row builder.
//
// Joint kinematics (derived once here, used by every type):
//   Frames in the world: pA = xA + RA fa.p, qFA = qA fa.q (same for B); d = pB - pA.
//   Linear coordinates: x_k = d . a_k with a_k the axes of frame A in the world. For C = d . a,
//     dC/dt = a . (vB + wB x rB - vA - wA x rA) + d . (wA x a)
//   so the row is lin = a, ang_a = -((rA + d) x a), ang_b = rB x a (rA, rB: anchors minus centres).
//   Angular coordinates: q = qFA* qFB = (w, x, y, z), sign chosen so w >= 0. Its rate is
//   qdot = 1/2 [0, W] q with W = RFA^T (wB - wA) the relative angular velocity in frame A.
//   Swing-twist: q = qs qt with qt = (w, x, 0, 0)/r, r = sqrt(w^2 + x^2), and
//   qs = (r, 0, y', z'), y' = (w y - x z)/r, z' = (w z + x y)/r. Twist theta = 2 atan2(x, w).
//   Swing angle phi = 2 atan2(sigma, r) with sigma = |(y', z')| = sqrt(y^2 + z^2), direction
//   psi = atan2(z', y') = atan2(x, w) + atan2(z, y); swing vector s = phi (cos psi, sin psi).
//   Differentiating through qdot = 1/2 G(q) W (G's rows: w-row -(x,y,z); vector rows w I - [q_v]x):
//     d theta = (1, z'/r, -y'/r) . W
//     d phi   = (0, cos psi, sin psi) . W
//     d psi   = (1, kappa' sin psi, -kappa' cos psi) . W,  kappa' = (sigma^2 - r^2) / (2 r sigma)
//     d s_y   = cos psi d phi - phi sin psi d psi,  d s_z = sin psi d phi + phi cos psi d psi
//   which stay finite as sigma -> 0 (phi/sigma -> 2/r): s_y -> (0, 1, 0), s_z -> (0, 0, 1).
//   The world-frame row for an angular coordinate with gradient g (in frame A) is ang_a = -RFA g,
//   ang_b = RFA g, lin = 0.
#ifndef SINEW_JOINT_INTERNAL_H
#define SINEW_JOINT_INTERNAL_H

#include "constraint/link_row.h"
#include "constraint/row.h"

#include "sinew/types.h"

typedef struct sn_world sn_world;

// Warm-start slots: four per axis (lock or spring, lower limit, upper limit, motor) and the cone.
enum
{
	SLOT_MAIN = 0,
	SLOT_LOWER = 1,
	SLOT_UPPER = 2,
	SLOT_MOTOR = 3,
	SLOTS_PER_AXIS = 4,
	SLOT_CONE = SN_AXIS_COUNT * SLOTS_PER_AXIS,
	JOINT_SLOTS = SLOT_CONE + 1
};

typedef struct joint
{
	uint32_t generation;
	int32_t next_free;
	bool live;
	sn_joint_type type;
	int32_t body_a, body_b; // body slot indices, -1 for the world
	sn_transform frame_a, frame_b;
	sn_soft lock_soft;
	double break_force, break_torque;
	bool enabled, broken;
	bool collide_connected; // the two bodies' shapes still collide (contact/filter.c)
	bool on_link;           // a side is an articulation link
	bool articulated;       // XPBD and DIRECT worlds: in an island with an articulation this step (its rows
							// are the articulations' TGS path's: island.c island_mark_articulated)
	uint64_t user_data;
	sn_joint_axis axes[SN_AXIS_COUNT];
	uint8_t movable;     // bit per axis that takes limits, motors and springs
	sn_cone_limit cone;  // spherical joints
	double length;       // distance joints: rest length, m
	bool spring_enabled; // distance joints
	sn_soft spring;      // distance joints
	int max_rows;
	double warm[JOINT_SLOTS]; // warm start: last impulse per slot divided by its (sub)step, N or N*m
	sn_vec3 force, torque;    // last step: on body B (N) and about B's anchor (N*m), world
} joint;

typedef struct joint_frame
{
	sn_vec3 pa, pb;              // anchors, world
	sn_vec3 ca, cb;              // centres of mass, world
	sn_vec3 d;                   // pb - pa
	sn_vec3 axis[3];             // frame A axes, world
	sn_quat qrel;                // frame B in frame A, w >= 0
	double coord[SN_AXIS_COUNT]; // x, y, z (m), theta, s_y, s_z (rad)
	sn_vec3 jac[3];              // world gradients of theta, s_y, s_z with respect to wB - wA
	double phi, psi;             // swing angle and its direction in the y-z plane, rad
	sn_vec3 jac_phi, jac_psi;    // world gradients of phi and psi (jac_psi unbounded as phi -> 0)
} joint_frame;

// Row construction for one joint in one (sub)step.
typedef struct row_builder
{
	sn_world* world; // for rows on articulation links (NULL: the solver takes no such joints)
	int32_t joint_index;
	int32_t sa, sb; // solver body indices
	double ma, mb;
	sn_mat33 inv_ia, inv_ib; // world inverse inertia
	double h;                // (sub)step length, s
	double rigid_bias_rate;  // erp / h, or 0
	row* rows;               // where to write
	int count;
	row_block* blocks; // where to write lock blocks
	int block_count;
	const double* warm; // the joint's warm-start table
	// Project free-axis rows out of the lock block (builder_project_free_rows): on for the sequential
	// solvers, off for the direct solve, which couples the rows itself.
	bool project_free_rows;
	bool links;           // a side is an articulation link (constraint/link_row.h)
	link_row_sides sides; // its sides, when links
} row_builder;

// Point the builder at joint `index`: its bodies' solver slots, masses and inverse inertias (from the
// world's solver slots) and its warm-start table.
void builder_begin_joint(const sn_world* world, row_builder* b, int32_t index);

joint* joint_get(const sn_world* world, sn_joint_id id);
sn_joint_id joint_id_of(const sn_world* world, int32_t index);
void joint_frame_compute(const sn_world* world, const joint* j, joint_frame* frame);
// The joint's anchors, their separation and its last forces are finite (the divergence check: finite
// bodies with huge frame offsets or coordinates can still put a joint's state out of range).
bool joint_state_finite(const sn_world* world, const joint* j);

// Emit one row. `ang_only` rows have lin = 0. Returns the row (for tweaks) or NULL if it is inert.
row* builder_emit(row_builder* b, int slot, sn_vec3 lin, sn_vec3 ang_a, sn_vec3 ang_b, double c, sn_soft soft,
				  double lo, double hi, double target_speed, uint16_t flags);
// Solve rows [first, b->count) as one block if they are rigid bilateral rows and K is invertible.
void builder_make_block(row_builder* b, int first);
// Project a joint's rows on free axes (springs, motors, limits, the cone: rows [first, lock block)) out
// of its lock block, so each is solved with the effective mass of its axis while the locks hold.
//   Solved alone, a free row sees only K = J M^-1 J^T (for a torque, the body's inertia about its own
//   centre), and the lock block then undoes most of each impulse: for a bob of inertia I on an arm r,
//   Gauss-Seidel gains only I / (I + m r^2) of the way per sweep, so a limit hit at speed overshoots
//   and bounces back. With the block's K_L and the couplings c_j = J M^-1 J_j^T,
//     J' = J - sum_j alpha_j J_j,   alpha = K_L^-1 c,   so that  J_j M^-1 J'^T = 0:
//   an impulse along J' leaves the locks' velocities as they are, K' = J' M^-1 J'^T = K - c . alpha is
//   the inverse effective mass of the axis with the locks holding (1 / (I + m r^2) for the bob), and
//   J' v is the axis speed J v that solving the locks will leave. The impulse P along J' is P on the row
//   plus -alpha_j P on each lock, which is what forces out (lin, anchor_torque) add up.
void builder_project_free_rows(row_builder* b, int first);
// Jacobian pieces of a coordinate: linear axis k (0..2) or angular coordinate (3..5).
void joint_axis_jacobian(const joint_frame* f, int axis, sn_vec3* lin, sn_vec3* ang_a, sn_vec3* ang_b);

// Per type: map a def to the joint record, and build the type's rows.
int joint_build_rows(const sn_world* world, const joint* j, const joint_frame* f, row_builder* b);
int axes_joint_build_rows(const joint* j, const joint_frame* f, row_builder* b);
int spherical_joint_build_rows(const joint* j, const joint_frame* f, row_builder* b);
int distance_joint_build_rows(const joint* j, const joint_frame* f, row_builder* b);

// Shared creation path: validates the base and the axes, writes the record, returns the id.
sn_error joint_create(sn_world* world, sn_joint_type type, const sn_joint_base* base, const joint* config,
					  sn_joint_id* out_id);
sn_error joint_check_limit(sn_world* world, const char* what, sn_limit limit, bool angular);
sn_error joint_check_motor(sn_world* world, const char* what, sn_motor motor);
sn_error joint_check_spring(sn_world* world, const char* what, sn_spring spring);
sn_error joint_check_soft(sn_world* world, const char* what, sn_soft soft);
// A distance joint's min and max length: 0 <= min <= max, min finite, max may be INFINITY.
sn_error distance_joint_check_limit(sn_world* world, const char* what, sn_limit limit);
// A free axis with a limit, motor and spring from a def.
sn_joint_axis joint_moving_axis(sn_limit limit, sn_motor motor, sn_spring spring);
int joint_max_rows(const joint* j);
// Count a joint on its links' articulations (delta +1 or -1): their rows then keep room for its rows.
void joint_count_links(sn_world* world, joint* j, int delta);

#endif
