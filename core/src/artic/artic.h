// Internal articulation records and the articulation pipeline, stage by stage:
//
//   artic/store.c       defaults, validation, the store inside sn_world, creation, step bookkeeping, hash
//   artic/access.c      the public state API: joint state, link queries, forces in and out, drives, limits
//   artic/kinematics.c  link poses from joint positions, link velocities, spherical joint coordinates
//   artic/dynamics.c    Featherstone's articulated-body algorithm (free motion), M^-1 applied to joint
//                       impulses, position integration, incoming joint forces
//   artic/response.c    unit test impulses: the response r_ij of dof i's speed to an impulse on dof j
//   artic/drive.c       implicit PD drive rows (PhysX's implicit drive notes)
//   artic/mimic.c       mimic joint rows (PhysX's mimic-joint notes) and their API
//   artic/solve.c       the rows of a solve (limits, friction, drives, mimic) in PGS and TGS iterations,
//                       and the entry points the world's solvers call
//   artic/snapshot.c    the articulation section of world snapshots
//
// The model (topology, frames, mass, gains, couplings) is kept apart from the state (joint positions
// and velocities, base pose and velocity, warm starts) and from the per-solve scratch. Everything an
// articulation needs is allocated when it is created (or when a setter or a mimic joint adds rows), so
// a step allocates nothing.
#ifndef SINEW_ARTIC_H
#define SINEW_ARTIC_H

#include "alloc.h"
#include "constraint/soft.h"
#include "math/lanes.h"
#include "math/spatial.h"

#include <math.h>

#include "sinew/articulation.h"

typedef struct sn_world sn_world;
struct snap_writer;
struct snap_reader;

// Rows per dof: drive, friction, lower and upper limit (warm-start slots use the same order).
enum
{
	ARTIC_WARM_DRIVE = 0,
	ARTIC_WARM_FRICTION = 1,
	ARTIC_WARM_LOWER = 2,
	ARTIC_WARM_UPPER = 3,
	ARTIC_WARM_SLOTS = 4
};

// Slots of a floating base's velocity (w, v about O) in a solve whose contacts act on its links.
enum
{
	ARTIC_BASE_SLOTS = 6
};

// ---- model ------------------------------------------------------------------------------------------

// Hot model of a link, read by every solve. Geometry is kept relative to the child-side joint frame
// (artic/kinematics.c): its world axes J_i and origin (the anchor) are all the kinematics tracks.
typedef struct artic_link
{
	int32_t parent;            // -1 for the base
	int32_t dof;               // first dof of the inbound joint
	uint8_t type;              // sn_link_joint_type
	uint8_t dof_count;         // 0, 1 or 3
	bool k_identity;           // k is exactly the identity
	bool diag_inertia;         // inertia_j is diagonal
	double mass;               // kg
	sym33 inertia_j;           // about the centre of mass, child joint frame axes, kg*m^2
	sn_vec3 com_j;             // centre of mass minus anchor, child joint frame axes, m
	sn_vec3 t;                 // parent-side joint origin minus the parent's anchor, parent's joint axes, m
	double armature;           // kg or kg*m^2
	double joint_damping;      // N*s/m or N*m*s/rad
	double joint_friction;     // N or N*m
	double max_joint_velocity; // m/s or rad/s
} artic_link;

// Cold model of a link: what the def said, for getters and link poses.
typedef struct artic_link_info
{
	sn_transform parent_frame, child_frame; // joint frames (unit quaternions)
	sn_mat33 inertia;                       // about the centre of mass, link axes
	sn_vec3 com;                            // link frame
	sn_mat33 cf_rot_t;                      // transpose of the child joint frame axes in link axes
	uint64_t user_data;
} artic_link_info;

// ---- per-solve scratch --------------------------------------------------------------------------------

// Kinematics at the current joint positions (kept valid after every step and setter).
typedef struct artic_kin
{
	sn_mat33 joint; // child-side joint frame axes, world (for the base: the base frame); x is the axis
	sn_vec3 anchor; // child-side joint frame origin, world, m (for the base: the base origin)
} artic_kin;

// What a solve computes per link and what the last solve's joint forces are computed from afterwards
// (artic_incoming, when they are read): the articulation's own memory.
typedef struct artic_work
{
	sn_vec3 r;  // centre of mass relative to O, m
	sym33 ic;   // world inertia about the centre of mass
	sn_vec3 ra; // anchor relative to O, m
	sv6 p0;     // force the link needs with zero joint accelerations: I a0 + v x* I v - f_ext
	sv6 a;      // pass 1: a0 (gravity as a base acceleration); pass 3 on: da, the acceleration beyond a0
	sv6 pa;     // articulated bias force (pass 2); the link's joint force (end of the solve)
} artic_work;

// A link's temporaries within one step, and a dof's (artic_dof_work): in the step's scratch (world.h,
// sn_step_scratch), which a thread may lend to many worlds in turn, so nothing here outlives the step.
// artic_scratch_bind points every articulation at its part at the start of a step and unbinds them (NULL)
// at its end.
typedef struct artic_link_temp
{
	sv6 v; // spatial velocity at the start of the solve
	union
	{
		ainertia ia; // articulated inertia (passes 1 and 2)
		rinertia ic; // composite rigid inertia (artic_drive_inverse)
		sv6 z[2];    // unit impulse columns (artic/response.c): articulated impulses, then velocity changes
		sv6x2 zz;    // the same for two right-hand sides at once (artic_impulse_response)
	} m;
} artic_link_temp;

typedef struct artic_dof_work
{
	sv6 s;          // motion subspace column, world, about O
	sv6 u6;         // U = IA S
	double dinv[3]; // this dof's row of D^-1 (one-dof joints: dinv[0] = 1 / D)
	double u;       // tau - S^T pA (tau: the free motion's generalised force, N or N*m)
	double y[2];    // impulse passes: joint impulses in, velocity changes out
} artic_dof_work;

// ---- rows ---------------------------------------------------------------------------------------------

typedef enum artic_row_kind
{
	ARTIC_ROW_DRIVE = 0,
	ARTIC_ROW_FRICTION = 1,
	ARTIC_ROW_LOWER = 2,
	ARTIC_ROW_UPPER = 3,
	ARTIC_ROW_MIMIC = 4,
} artic_row_kind;

typedef struct artic_row
{
	uint8_t kind; // artic_row_kind
	bool soft;    // soft limit or compliant mimic (coef holds the coefficients)
	int32_t slot; // active slot of the dof (one-dof rows)
	int32_t lo;   // the active slots its impulse can move: [lo, hi) (its dofs' spans)
	int32_t hi;
	int32_t key;  // dof (one-dof rows) or mimic slot (mimic rows)
	double sign;  // Jacobian of a one-dof row: +1, or -1 for an upper limit
	double k;     // J W J^T, the row's inverse effective mass
	double inv_k; // 1 / k: the effective mass (0 when k is 0)
	double c0;    // position error at the start of the solve (limits, mimic), m or rad
	double bound; // |impulse| <= bound * h_window (drive, friction, mimic), N or N*m
	double hold;  // TGS: the impulse that holds the free-motion kick, applied with it (artic/solve.c), N*s
	double warm;  // warm-start impulse applied at the start of each window, N*s
	double acc;   // impulse in the current window, N*s
	double total; // impulse over the solve, N*s
	double push;  // pseudo impulse of the current window (split impulse of rigid rows), N*s
	bool splits;  // a rigid limit or mimic row: its position error is corrected by pseudo impulses
	bool held;    // TGS: the row is in the hold's active set
	soft_coefficients coef;
	// Drive coefficients (artic/drive.c) for the window length.
	double drive_bias;                // x b + x h kp (x_T - x_0)
	double drive_vel;                 // -x a
	double drive_impulse;             // 1 - x
	double drive_pos_coef;            // x h kp: multiplies the accumulated displacement
	double drive_target_pos;          // x h kp v_T: multiplies the time left to the target
	double drive_diag;                // 1 / a + r = 1 / (x a): the row's diagonal in the drive block (0: inert)
	double drive_speed;               // the drive pushes its dof no faster than this (max_velocity), m/s or rad/s
	double* wj;                       // mimic rows: W J^T over the active slots
	int32_t mcount;                   // mimic rows: the coupled dofs' count,
	int32_t mslot[SN_MIMIC_MAX_DOFS]; // their active slots
	double mgear[SN_MIMIC_MAX_DOFS];  // and their gearing (mgear[0] = 1): J over the active slots
} artic_row;

// Rows of one solve over the k active slots: the kd active dofs (dofs that carry any row, or that lie on
// the path of a link with contacts to the root), then, when contacts act on a floating base's links, the
// base's six velocity components (w, v about O) as slots kd..kd+5.
typedef struct artic_rows
{
	int k_capacity, row_capacity;
	int k, count;
	int kd;           // active dof slots; k - kd is 0 or ARTIC_BASE_SLOTS
	int32_t* act_dof; // dof of each active dof slot
	int32_t* span_lo; // [k_capacity] first and one past the last active slot that the slot's speed couples
	int32_t* span_hi; // with: its subtree of a fixed base (W is zero across them), all slots otherwise
	bool interleaved; // a fixed base's subtrees interleave in slot order: the spans are all slots, and W is
					  // still zero across the subtrees (artic/response.c)
	double* w;        // k x k response, column by column: w[j * k + i] = r_ij (column j contiguous); on the
					  // drive path with fast_dense, (M + A)^-1 instead
	double* v;        // current speed of each active dof
	double* x0;       // position at the start of the solve
	double* dx;       // displacement accumulated in TGS windows
	double* p;        // joint impulse applied so far in the solve (per active dof)
	double* y;        // time integral of p (and of the windows' pseudo impulses) over the advanced windows
	double* vp;       // pseudo speed of each active dof in the current window (split impulse)
	double* pp;       // pseudo impulse per active dof in the current window
	double* wj;       // mimic rows' W J^T vectors (k_capacity each, mimic_capacity of them)
	int wj_capacity;
	// The drive path (artic/solve.c): every dof carries a drive and nothing else.
	bool fast;          // this solve takes it: no W, no block; one pass of M + A per window
	double* fast_a;     // [k_capacity] per slot: a = rho (rho kp + kd) of its drive, kg or kg*m^2
	double* fast_c;     // b + rho kp (x_T - x_0): the drive's target term before dx and the time left, N*s
	double* fast_cpos;  // rho kp: multiplies dx
	double* fast_ctp;   // rho kp v_T: multiplies the time left
	double* fast_bound; // max_force rho: a window's bound on each drive's impulse, N*s
	double* fast_speed; // max_velocity, m/s or rad/s
	double* fast_share; // each window's share of the slot's hold, N*s
	double* fast_total; // the slot's drive impulse so far in the solve (the row's total), N*s
	double* fast_g;     // a window's right-hand side, then its drives' impulse changes (and a floating hold's kick)
	double* fast_y;     // the window's speed changes (and the hold's impulses)
	sv6* fast_u6;       // the factor of M + A: U = IA S
	double* fast_dinv;  // and 1 / D
	double fast_base_l[36], fast_base_dinv[6]; // a floating base: LDL^T factor of its articulated inertia
	bool fast_dense;      // the windows multiply by (M + A)^-1 instead (artic_drive_inverse): it is in w,
						  // row-major, and U = L^-T of its factor in block_l
	int32_t* fast_parent; // [k_capacity] its dof parents: each dof's nearest ancestor dof, -1 at the base
	int block_count;      // drive rows solved together (artic/drive.c), 0 if none
	int32_t* block_rows;  // [k_capacity] their row indices
	double* block_l;      // [k_capacity^2] Cholesky factor of A^-1 + W over those rows, by columns (fast_dense: U)
	bool block_span;      // every row of the block moves the same span of slots [lo, hi)
	int32_t* block_col;   // [k_capacity] where each block row's column of W starts in w (slot * k)
	int32_t* block_nz;    // [k_capacity] scratch of a sweep: the W columns of the changes that are not zero
	double* block_d;      // [k_capacity] and those changes
	double* block_v;      // [k_capacity] scratch of a sweep: the speeds after the block's changes, by slot
	double* block_x;      // [k_capacity] right-hand side, then solution
	double* block_inv;    // [k_capacity] reciprocal pivots of block_l
	int hold_capacity;    // k_capacity + wj_capacity: rows that may hold the kick (one per dof, the mimic rows)
	int32_t* hold_rows;   // [hold_capacity] their row indices
	double* hold_l;       // [hold_capacity^2] Cholesky factor of their J W J^T
	double* hold_x;       // [hold_capacity] right-hand side, then solution
	double* hold_inv;     // [hold_capacity] reciprocal pivots of that factor (0 for a dropped row)
	artic_row* rows;
	size_t scratch_bytes; // the arrays' footprint in the step's scratch, where they are (artic_scratch_bind)
} artic_rows;

// ---- the articulation -----------------------------------------------------------------------------------

// What the midpoint prediction of the next solve has (artic/dynamics.c, artic_forward), in artic.free_history.
typedef enum artic_free_history
{
	ARTIC_FREE_NONE = 0,       // nothing: the solve takes two passes
	ARTIC_FREE_AFTER_ROWS = 1, // the last solve's accelerations, but rows or contacts acted in that solve: they
							   // predict, and begin no trend
	ARTIC_FREE_ONE = 2,        // the last solve's: they predict, and begin a trend with the next solve's
	ARTIC_FREE_TWO = 3,        // the last two solves', on one smooth stretch: extrapolated
} artic_free_history;

typedef struct artic
{
	uint32_t generation;
	int32_t next_free;
	bool live;

	// model
	bool fixed_base;
	bool serial;   // a chain: every link's parent is the link before it (passes may carry sums in registers)
	bool midpoint; // velocity terms at the midpoint speeds (sn_articulation_def)
	double gravity_scale;
	double max_correction_speed; // bound on the pseudo speed of position corrections, m/s or rad/s
	uint64_t user_data;
	int link_count, dof_count;
	artic_link* links;     // [link_count] hot
	artic_link_info* info; // [link_count] cold
	sn_mat33* k;           // [link_count] parent-side joint axes in the parent's child-side joint axes
	int32_t* dof_link;     // [dof_count] link of each dof
	sn_limit* limits;      // [dof_count]
	sn_drive* drives;      // [dof_count]
	int limit_count;       // dofs whose limit is enabled (none: a solve need not read limits at all)
	int mimic_count;       // live mimic joints on this articulation
	// collision: the body slot of each link (body.c) and whether its links collide with each other
	int32_t* link_body; // [link_count]
	bool self_collision;
	int shape_count;       // shapes on its links (shape.c): contact rows may then need every dof as a slot
	int link_joint_count;  // maximal joints on its links (joint/joint.c): their rows may too
	bool asleep;           // its island sleeps (island.c): no solve until it is woken
	double sleep_time;     // s it has moved slower than the sleep thresholds
	int32_t sleep_group;   // while asleep: the island it sleeps with, else -1
	uint8_t* link_contact; // [link_count] scratch: the link has contact rows in the current solve

	// state
	sn_transform base_pose;
	sn_vec3 base_v, base_w; // velocity of the base frame origin (m/s) and angular velocity (rad/s)
	double* q;              // [dof_count] m or rad (spherical: rotation vector, derived from sph)
	double* qd;             // [dof_count] m/s or rad/s (spherical: angular velocity in the parent joint frame)
	sn_quat* sph;           // [link_count] spherical joint rotation (parent joint frame <- child joint frame)
	double* warm;           // [dof_count * ARTIC_WARM_SLOTS] last step's row forces, N or N*m
	bool warm_set;          // warm may hold nonzero entries

	// inputs for the next step
	bool has_inputs;     // joint_force or link_force is not all zero
	double* joint_force; // [dof_count] N or N*m
	sv6* link_force;     // [link_count] torque about the world origin and force, N*m and N

	// outputs of the last step, as impulses over it (divided by step_dt when read)
	double step_dt;        // s
	bool first_substep;    // the next solve starts a step: outputs are overwritten, not accumulated
	double* effort;        // [dof_count] drive impulse, N*s or N*m*s
	bool effort_set;       // effort may hold nonzero entries
	sv6* incoming;         // [link_count] (torque about the anchor, force) times time, world: read through
						   // artic_incoming, which computes it from the last solve when it is pending
	bool incoming_pending; // the last solve's joint forces are not yet in incoming (artic/dynamics.c)
	bool incoming_first;   // that solve was its step's first: it overwrites incoming, else it adds
	double incoming_h;     // that solve's length, s
	double max_speed;      // largest |qd| or base speed after the last solve (NaN if not finite)

	// scratch
	artic_kin* kin;                // [link_count] valid at the current state
	artic_work* work;              // [link_count]
	artic_link_temp* temp;         // [link_count] in the step's scratch: NULL outside a step and a response
	artic_dof_work* dw;            // [dof_count] in the step's scratch: NULL outside a step and a response
	int32_t* dof_slot;             // [dof_count] active slot or -1
	uint8_t* limit_near;           // [dof_count] limit sides this solve may reach: 1 lower, 2 upper
	int32_t* subtree;              // [link_count] the child of the base whose subtree holds the link (0: base)
	int32_t* reach;                // [link_count] the largest active slot at or below the link, -1 if none
	uint8_t* needed;               // [link_count] link lies on a path from the root to an active dof
	double* qd_free;               // [dof_count] after the free-motion kick
	double* qdd_free;              // [dof_count] midpoint: the last solve's free accelerations (state)
	double* qdd_prev;              // [dof_count] and the solve's before it (state)
	sv6 base_a_free, base_a_prev;  // and the floating base's (its origin's classical acceleration)
	uint8_t free_history;          // what they hold: artic_free_history (artic_forward)
	double base_l[36];             // floating base: LDL^T factor of the base's articulated inertia (unit lower L)
	double base_dinv[6];           // and the reciprocals of D; all zero if the factorisation failed
	sn_vec3 origin;                // O of the current solve
	sv6 base_v_start, base_v_free; // floating base spatial velocity (about O): start, after the kick
	sn_vec3 base_coriolis;         // w x v of the base velocity the solve's bias forces used
	sv6 base_impulse[2];           // floating base: contact impulse on the base (and its time integral) that
								   // artic_impulse_response adds at the root, then clears
	double solve_h;                // length of the current solve, s
	bool tgs;                      // the current solve is TGS
	int windows;                   // TGS windows in the current solve (1 for PGS)
	double rate_erp, rate_hw;      // the last artic_bias_rate computed for the rows (artic_row_bias_rate):
	int rate_windows;              // its arguments (windows 0: none yet)
	double rate;                   // and its value, 1/s
	artic_rows rows;

	void* block; // one allocation for everything sized by the links
	size_t block_size;
	size_t block_hot; // its first bytes: what a step touches unless shapes or link joints read info (store.c)
} artic;

typedef struct artic_mimic
{
	uint32_t generation;
	int32_t next_free;
	bool live;
	int32_t artic;       // articulation slot
	sn_mimic_def def;    // as created (gearing[0] = 1), the articulation id inside
	double warm;         // last step's force on dof 0, N or N*m
	double force;        // force applied in the last step, N or N*m
	double step_impulse; // impulse accumulated over the substeps of this step, N*s
} artic_mimic;

typedef struct artic_store
{
	artic* items;
	int capacity, high, count;
	int32_t free;
	artic_mimic* mimics;
	int mimic_capacity, mimic_high, mimic_count;
	int32_t mimic_free;
	int solving;                   // articulations with rows in the current solve (sweeps skip when 0)
	int path_windows, path_leaves; // the last step's windows on the drive path, and returns from it (solve.c)
	int path_dense;                // the last step's solves on the drive path with the inverse of M + A
	int midpoint_passes;           // the last step's solves whose midpoint prediction missed (dynamics.c)
	int structured_holds;          // the last step's hold passes solved by one pass of the inertia (solve.c)
} artic_store;

// ---- artic/store.c -------------------------------------------------------------------------------------

artic* artic_get(const sn_world* world, sn_articulation_id id);
// Validate a def (every field, as sn_create_articulation does) and build the record with its memory,
// not yet in the store. On failure nothing is allocated and *out is untouched.
sn_error artic_build(sn_world* world, const sn_articulation_def* def, const sn_link_def* links, int link_count,
					 artic* out);
// The store, created on first use (NULL if out of memory).
artic_store* artic_store_get(sn_world* world);
void artic_store_destroy(sn_world* world);
// The step's scratch (artic_link_temp, artic_dof_work and every array of artic_rows): bytes every live
// articulation needs, pointing them into a block of that size (aligned to SCRATCH_ALIGN), and back to NULL.
// Bound for a step (world.c) and for sn_articulation_compute_response.
size_t artic_scratch_demand(const sn_world* world);
void artic_scratch_bind(sn_world* world, unsigned char* base);
void artic_scratch_unbind(sn_world* world);
// Called by sn_world_step around its substeps: mark the step's first solve (outputs are overwritten,
// then accumulated over substeps); then record the step length dt (s) that turns them into forces,
// clear the inputs, and compute the mimic forces.
void artic_step_begin(sn_world* world);
void artic_step_end(sn_world* world, double dt);
// True if an articulation's last solve left a speed above speed_limit or a state that is not finite.
bool artic_diverged(const sn_world* world, double speed_limit);
// A full check of every articulation's state, for clearing the diverged flag: SN_ERR_NOT_FINITE,
// SN_ERR_DIVERGED (a joint or base speed above speed_limit) or SN_ERR_OK.
sn_error artic_check_state(const sn_world* world, double speed_limit);
uint64_t artic_state_hash(const sn_world* world, uint64_t h);
// Validation shared by creation, setters and snapshots (world_fail with a detail line on failure).
sn_error artic_check_limit(sn_world* world, const char* where, sn_limit limit);
sn_error artic_check_drive(sn_world* world, const char* where, const sn_drive* drive);
// Grow the articulation's row storage for its current model plus an optional mimic joint about to be
// created (extra may be NULL). SN_ERR_NO_MEMORY or SN_ERR_CAPACITY leave it as it was.
sn_error artic_reserve_rows(sn_world* world, artic* a, const sn_mimic_def* extra);

// ---- artic/kinematics.c -------------------------------------------------------------------------------

// All links' kinematics from the base pose and joint positions.
void artic_update_kinematics(artic* a);
// Parent-side joint frame axes of link i > 0, world.
sn_mat33 artic_parent_joint_axes(const artic* a, int i);
// World pose of a link's frame.
sn_transform artic_link_pose(const artic* a, int link);
// Rotation vector of each spherical joint into q (from sph).
void artic_sync_spherical(artic* a);
// Linear velocity of a world point on a link, and the link's angular velocity, from the current state.
void artic_point_velocity(const artic* a, int link, sn_vec3 point, sn_vec3* linear, sn_vec3* angular);

// ---- artic/dynamics.c ---------------------------------------------------------------------------------

// Articulated-body algorithm at the current state for a solve of length h: free joint accelerations and
// the factorisation used by the impulse passes; qd_free = qd + h qdd (and the base), velocity terms at
// the start speeds or, for a midpoint articulation, at the predicted midpoint speeds (file header); the
// latter keeps the free accelerations for the next solve's prediction. True if the prediction missed and a
// second pass took the velocity terms at the solve's own midpoint.
bool artic_forward(artic* a, sn_vec3 gravity, double h);
// The same at the start speeds, for the factorisation alone: the state, and what the next solve predicts
// from, are not touched.
void artic_factor(artic* a, sn_vec3 gravity, double h);
// Velocity changes of every dof (and the floating base) for joint impulses: out = M^-1 in, for the two
// right-hand sides given in dw[].y[] (side by side, in the two lanes of sv6x2). The base's changes go to
// base_out[0] and base_out[1].
void artic_impulse_response(artic* a, sv6 base_out[2]);
// The drive path of artic/solve.c (links of at most one dof, slot = dof, no base slots). The factor of
// M + diag(extra) (M the impulse passes' joint-space inertia) into u6 and dinv, and for a floating base
// the LDL^T factor of its articulated inertia (false if that fails), with work[].m as scratch;
// one window of the path with that factor (rows.fast_*: fast_y = (M + diag(fast_a))^-1 fast_g, its right-hand
// side built from the drives' coefficients, and the drives' impulse changes into fast_g; false if a drive
// would cross its force or speed bound); out = M x (false if a floating base's composite inertia cannot be
// factored).
bool artic_drive_factor(artic* a, double h, const double* extra, sv6* u6, double* dinv, double* base_l,
						double* base_dinv);
bool artic_drive_window(artic* a, double time_left);
// The same on a fixed base of at most ARTIC_DRIVE_DENSE_MAX_DOFS dofs with the inverse of M + diag(extra)
// (artic/dynamics.c; rows.fast_dense): the inverse itself in rows.w (row-major, k x k, symmetric), formed
// from the factor L^T D L (1 / D left in rows.fast_dinv, the dof parents in rows.fast_parent, U = L^-T in
// rows.block_l as scratch); false if the articulation has more dofs, a joint of several dofs, dofs not
// numbered parents first, or a pivot that is not positive. One window with that inverse, as
// artic_drive_window.
bool artic_drive_inverse(artic* a, double h, const double* extra);
bool artic_drive_window_dense(artic* a, double time_left);
bool artic_mass_times(artic* a, double h, const double* x, double* out);
// A fixed base's free-motion kick as an impulse on each dof, M (qd* - qd) = h (tau - C), from the bias
// forces of the last free-motion pass (before anything overwrites them).
void artic_free_impulse(artic* a, double h, double* out);
// Velocity change of a floating base for the articulated impulse z it receives: -IA_0^-1 z.
sv6 artic_base_response(const artic* a, sv6 z);
// End of a solve: velocities qd_free + M^-1 p, positions advanced by h qd_free + M^-1 y (both from
// dw[].y when have_rows; when responded, dw[].y already hold M^-1 p and M^-1 y, and a fixed base), kinematics,
// max_speed; the incoming joint forces become pending.
void artic_finish(artic* a, double h, bool have_rows, bool responded);
// The incoming joint forces, computed first if the last solve's are still pending (a cache: it writes
// through the const pointer, as a world is used by one thread at a time).
const sv6* artic_incoming(const artic* a);
// Compute pending incoming joint forces now (before anything overwrites the work arrays).
void artic_incoming_settle(artic* a);

// ---- artic/response.c ---------------------------------------------------------------------------------

// The response matrix W (r_ij) among the active dofs of a->rows.
void artic_compute_response(artic* a);

// ---- artic/drive.c ------------------------------------------------------------------------------------

// Coefficients of a drive row for windows of length hw (PGS: the solve; TGS: rho = h / n).
void artic_drive_prepare(artic_row* ar, const sn_drive* drive, double response, double x0, double hw);
// New impulse of a drive row in the current window: the accumulated displacement dx and the time left
// until the end of the solve (TGS; 0 for PGS) enter through the coefficients.
double artic_drive_solve(const artic_row* ar, double v, double dx, double time_left);
// A drive's window impulse lambda bounded so that the drive pushes its dof (speed v now) no faster than its
// max_velocity: returns lambda, or the bound.
double artic_drive_speed_clamp(const artic_row* ar, double v, double lambda);
// Gather the articulation's drive rows into one block and factor A^-1 + W over them. Returns false
// (block_count 0) if there are fewer than two or the factorisation fails.
bool artic_drive_block_prepare(artic_rows* rs);
// Solve (A^-1 + W) x = b in place over the block (b and x in rs->block_x).
void artic_drive_block_solve(artic_rows* rs);

// ---- artic/mimic.c ------------------------------------------------------------------------------------

// Validate a mimic def like sn_create_mimic_joint (world_fail on failure); *out is its articulation.
sn_error artic_mimic_check(sn_world* world, const sn_mimic_def* def, artic** out);
// Build the rows of the articulation's mimic joints (after the one-dof rows), for windows of length hw.
void artic_mimic_build_rows(sn_world* world, int artic_index, artic* a, double hw, int windows);
// The position error q_0 + sum G_i q_i + offset of a mimic joint at the articulation's positions.
double artic_mimic_error(const artic* a, const sn_mimic_def* def);
// Destroy the mimic joints of an articulation slot.
void artic_mimic_destroy_all(sn_world* world, int artic_index);
// Store the solve's mimic impulses (warm starts and forces).
void artic_mimic_store(sn_world* world, artic* a, double h);

// ---- artic/solve.c ------------------------------------------------------------------------------------

typedef enum artic_sweep
{
	ARTIC_SWEEP_PGS_POSITION,
	ARTIC_SWEEP_PGS_VELOCITY,
	ARTIC_SWEEP_TGS_POSITION,
	ARTIC_SWEEP_TGS_VELOCITY,
} artic_sweep;

// Three exact shortcuts of artic/solve.c, on by default; tests turn them off to compare each with the
// route it replaces. The TGS hold solves rows that pivot one to one on every dof by one pass of the
// inertia rather than by a factorisation (hold_structured); drives alone take the drive path (one pass of
// M + A per window) rather than the general rows; on a fixed base of few dofs, the drive path's windows
// multiply by the inverse of M + A rather than take the pass (artic/dynamics.c).
extern bool artic_structured_hold;
extern bool artic_drive_path;
extern bool artic_drive_dense;

// The drive path's windows multiply by the inverse of M + A up to this many dofs (artic/dynamics.c).
#define ARTIC_DRIVE_DENSE_MAX_DOFS 16

// Rate beta of the pseudo speed -beta C that removes the fraction erp of a rigid row's error per solve
// of `windows` windows of length hw (artic/solve.c): (1 - (1 - erp)^(1/windows)) / hw.
double artic_bias_rate(double erp, int windows, double hw);
// The same, remembered for the last arguments (rows of one solve share them: no expm1 and log1p per row).
double artic_row_bias_rate(artic* a, double erp, int windows, double hw);
// Start a solve of length h for every articulation: free motion (ABA), rows, responses and warm starts.
// windows is 1 for PGS, position_iterations for TGS.
void artic_solve_begin(sn_world* world, double h, bool tgs, int windows);
// Whether any articulation has rows in the current solve: without them, and without bodies or contacts,
// a solve's windows have nothing to do.
bool artic_solve_has_rows(const sn_world* world);
// One Gauss-Seidel sweep over every articulation's rows. window is the TGS window index (1-based).
void artic_solve_sweep(sn_world* world, artic_sweep sweep, int window);
// Advance the rows' positions by hw (after a sweep's velocities are final for the window); the drive path
// advances in its own windows and is skipped.
void artic_solve_advance(sn_world* world, double hw);
// Finish the solve: velocities, positions, kinematics, forces, warm starts.
void artic_solve_end(sn_world* world);

// ---- contact rows on links (artic/solve.c; the contact solver, contact/solver.c, owns the rows) -----------

// Mark a link as touched by contact rows in the next solve: every dof on its path to the root becomes an
// active slot, and a floating base's velocity too. Cleared by artic_solve_end.
void artic_mark_contact_link(artic* a, int link);
// The Jacobian over the active slots of the current solve of a spatial impulse j (torque about the
// solve's O, force) acting on a link: J[s] = S_s . j on the link's path, j on the base slots, 0 elsewhere.
// jac has rows.k entries.
void artic_contact_jacobian(const artic* a, int link, sv6 j, double* jac);
// W J^T for a Jacobian over the active slots (wj: rows.k entries).
void artic_contact_response(const artic* a, const double* jac, double* wj);
// The solve's reference point O (spatial quantities are about it).
static inline sn_vec3 artic_solve_origin(const artic* a)
{
	return a->origin;
}

// ---- artic/snapshot.c ---------------------------------------------------------------------------------

// The ARTC section of a world snapshot (snapshot.c): write the pools; read them into a new world,
// validating every field (SN_ERR_BAD_SNAPSHOT with a detail line).
void artic_snapshot_write(struct snap_writer* w, const sn_world* world);
sn_error artic_snapshot_read(struct snap_reader* r, sn_world* world);

// y[s] += a x[s] for s in [lo, hi), two at a time (y and x do not overlap).
static inline void artic_axpy(double* y, double a, const double* x, int lo, int hi)
{
	const lane2 av = lane2_splat(a);
	int s = lo;
	for (; s + 2 <= hi; s += 2)
	{
		lane2_store(y + s, lane2_load(y + s) + av * lane2_load(x + s));
	}
	if (s < hi)
	{
		y[s] += a * x[s];
	}
}

// y[s] -= a x[s] for s in [lo, hi), two at a time (y and x do not overlap).
static inline void artic_axpy_sub(double* y, double a, const double* x, int lo, int hi)
{
	const lane2 av = lane2_splat(a);
	int s = lo;
	for (; s + 2 <= hi; s += 2)
	{
		lane2_store(y + s, lane2_load(y + s) - av * lane2_load(x + s));
	}
	if (s < hi)
	{
		y[s] -= a * x[s];
	}
}

// Kinematics of link i > 0 from its parent's and its joint position (artic/kinematics.c derives it).
static inline void artic_link_kinematics(artic* a, int i)
{
	const artic_link* l = a->links + i;
	const artic_kin* p = a->kin + l->parent;
	artic_kin* k = a->kin + i;
	sn_mat33 g = l->k_identity ? p->joint : sn_mat33_mul(p->joint, a->k[i]);
	sn_vec3 anchor = sn_add(p->anchor, sn_mat33_mul_v(p->joint, l->t));
	switch (l->type)
	{
		case SN_LINK_JOINT_REVOLUTE:
		{
			double q = a->q[l->dof];
			double c = cos(q), s = sin(q);
			k->joint.cx = g.cx;
			k->joint.cy = sn_add(sn_scale(c, g.cy), sn_scale(s, g.cz));
			k->joint.cz = sn_sub(sn_scale(c, g.cz), sn_scale(s, g.cy));
			break;
		}
		case SN_LINK_JOINT_PRISMATIC:
			k->joint = g;
			anchor = sn_mul_add(anchor, a->q[l->dof], g.cx);
			break;
		case SN_LINK_JOINT_SPHERICAL:
			k->joint = sn_mat33_mul(g, sn_mat33_from_quat(a->sph[i]));
			break;
		default:
			k->joint = g;
			break;
	}
	k->anchor = anchor;
}

#endif
