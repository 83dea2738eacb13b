// Sinew core: the world. A world owns its bodies, joints and articulations, and steps them with one
// solver. Worlds share nothing: independent worlds may be stepped on different threads at once. One
// world must not be used from two threads at the same time.
//
// What a step does (h = time_step / substeps, repeated substeps times):
//   PGS: integrate velocities (gravity, forces, gyroscopic torque implicitly, damping); warm-start rows;
//        position_iterations sweeps with Baumgarte bias erp*C/h; advance positions by h;
//        velocity_iterations sweeps without position bias (implicit springs continue).
//   TGS: rows' Jacobians fixed at the start; position_iterations sub-advances of rho = h/n, each:
//        integrate velocities over rho, warm-start, one sweep with the position error recomputed from the
//        accumulated displacement, advance positions by rho; then velocity_iterations sweeps without
//        position bias (implicit springs frozen, as PhysX's implicit drive notes freeze drives).
//   XPBD: position_iterations XPBD substeps of hx = h/n (Mueller et al. 2020, "Detailed Rigid Body
//        Simulation with Extended Position Based Dynamics"), each: integrate bodies; a forward and
//        a backward sweep of position corrections over every joint, dlambda = (-C - alpha~ lambda) /
//        (w1 + w2 + alpha~) with alpha~ = alpha/hx^2 and alpha the row's compliance (rigid rows alpha = 0);
//        derive velocities from the positions; then, unless velocity_iterations is 0, one velocity pass
//        (soft rows' damping, six-axis motors). erp unused.
//   DIRECT: rows built at the start pose; the compliant system of Faure's SOFA compliant plugin,
//        (J M^-1 J^T + D) P = t - J v_free with D and t from each row's compliance and the implicit
//        factors implicit_alpha and implicit_beta, solved exactly by a sparse LDL^T over the joint graph
//        (analysed again only when the joint graph changes), bounds by an active set; positions advance by
//        h (v + beta dv). Hard rows solve J v = -erp C / h. Iteration counts unused.
// Every solver reports joint forces in the same units (sn_joint_get_reaction), and every softness means
// the same physics in each (types.h, sn_soft). Where a joint def field means something particular in
// XPBD or DIRECT, joint.h says so.
// External forces and torques (sn_body_apply_*) act during the next step and are then cleared.
#ifndef SINEW_WORLD_H
#define SINEW_WORLD_H

#include "sinew/types.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sn_world sn_world;

// Defaults for a world def (see sn_world_def for each value).
sn_world_def sn_default_world_def(void);
// Defaults of a world's contact settings (see sn_contact_settings for each value).
sn_contact_settings sn_default_contact_settings(void);
// Defaults of a world's sleep settings (see sn_sleep_settings).
sn_sleep_settings sn_default_sleep_settings(void);

// Check a world def without creating anything. On failure writes a one-line reason into detail (if not
// NULL) and returns the error.
sn_error sn_world_def_check(const sn_world_def* def, char* detail, size_t detail_capacity);

// Create a world. *out_world is set only on success.
sn_error sn_world_create(const sn_world_def* def, sn_world** out_world);

// Destroy a world and everything in it. NULL is allowed.
void sn_world_destroy(sn_world* world);

// Advance by one time step: collision detection at the poses the step starts from (collision.h), then
// the solver. Returns SN_ERR_DIVERGED (and changes nothing) once the world's state has stopped being
// finite, SN_ERR_NO_MEMORY if scratch space could not grow (nothing changed). Allocates only when the
// world needs more room than any step before it: more bodies, joints, shapes, contact pairs, drive, limit
// or mimic rows, or the first step in its own scratch of a world stepped before only with a lent one.
sn_error sn_world_step(sn_world* world);

// Scratch for the temporaries of steps (the articulations' factors and impulse passes), lent to worlds
// stepped one after another on one thread. Each world keeps its own otherwise, so a thread that steps a
// thousand worlds in turn pulls a thousand sets of temporaries through its caches every round; lent one
// scratch, they all use the same memory, which stays in that core's cache. A scratch holds nothing from
// one step to the next and serves one step at a time: give each thread its own. It grows to the largest
// step it served (sn_step_scratch_get_capacity, bytes). Its memory comes from `allocator` (NULL, or a
// hook without both functions: malloc and free) and counts in no world's memory stats.
typedef struct sn_step_scratch sn_step_scratch;
sn_error sn_step_scratch_create(const sn_allocator* allocator, sn_step_scratch** out_scratch);
// NULL is allowed.
void sn_step_scratch_destroy(sn_step_scratch* scratch);
size_t sn_step_scratch_get_capacity(const sn_step_scratch* scratch);

// sn_world_step with the step's temporaries in `scratch` (NULL: the world's own). The result is bit for bit
// that of sn_world_step. SN_ERR_NO_MEMORY (nothing changed) if the scratch could not grow.
sn_error sn_world_step_with(sn_world* world, sn_step_scratch* scratch);

// A hint for a thread that steps many worlds in turn: start bringing into the cache what the next step
// of `world` touches (its record, its articulations' records, the state and model a step reads and
// writes, and the bodies and frames the collision stage reads), and return at once. Call it for the world
// you step next, then step the current one; the memory then arrives while that step runs instead of
// stalling the next one miss by miss. Where that memory lies is planned at the end of each step and kept
// in the first SN_WORLD_PREFETCH_HEAD bytes of the world's record: what this call must read first, which
// a thread that knows the world after next may ask for earlier still (__builtin_prefetch on those bytes,
// as the server's workers do). Before its first step it asks for nothing, and after a change between
// steps part of the plan may be stale (a wasted hint, never a fault). It changes nothing, and the rules
// of a getter apply (one thread at a time per world). At most SN_WORLD_PREFETCH_MAX_BYTES are planned:
// past that a world's own step is long enough to hide its misses, and more would push the current
// world's memory out. NULL is allowed.
#define SN_WORLD_PREFETCH_MAX_BYTES 16384
#define SN_WORLD_PREFETCH_HEAD 128
void sn_world_prefetch(const sn_world* world);

// The detail line of the last call on this world that failed ("" if none).
const char* sn_world_last_error_detail(const sn_world* world);

// Settings. Each setter validates like sn_world_def_check and changes nothing on failure.
sn_error sn_world_set_gravity(sn_world* world, sn_vec3 gravity);
sn_vec3 sn_world_get_gravity(const sn_world* world);
sn_error sn_world_set_time_step(sn_world* world, double time_step);
double sn_world_get_time_step(const sn_world* world);
sn_error sn_world_set_solver(sn_world* world, sn_solver solver);
sn_solver sn_world_get_solver(const sn_world* world);
sn_error sn_world_set_iterations(sn_world* world, int position_iterations, int velocity_iterations);
int sn_world_get_position_iterations(const sn_world* world);
int sn_world_get_velocity_iterations(const sn_world* world);
sn_error sn_world_set_substeps(sn_world* world, int substeps);
int sn_world_get_substeps(const sn_world* world);
sn_error sn_world_set_erp(sn_world* world, double erp);
double sn_world_get_erp(const sn_world* world);
sn_error sn_world_set_warm_start(sn_world* world, double warm_start);
double sn_world_get_warm_start(const sn_world* world);
// DIRECT's implicit factors alpha (velocity) and beta (position), each in [0.5, 1] (see sn_world_def).
sn_error sn_world_set_implicit_factors(sn_world* world, double alpha, double beta);
double sn_world_get_implicit_alpha(const sn_world* world);
double sn_world_get_implicit_beta(const sn_world* world);
// Sleep settings (types.h, sn_sleep_settings), validated as in sn_world_def_check. Turning sleeping off
// wakes everything.
sn_error sn_world_set_sleep_settings(sn_world* world, sn_sleep_settings settings);
sn_sleep_settings sn_world_get_sleep_settings(const sn_world* world);
// Contact settings (types.h, sn_contact_settings), validated as in sn_world_def_check.
sn_error sn_world_set_contact_settings(sn_world* world, sn_contact_settings settings);
sn_contact_settings sn_world_get_contact_settings(const sn_world* world);
// The whole def as currently set (allocator included).
sn_world_def sn_world_get_def(const sn_world* world);

// Simulated time, s, and steps taken since creation.
double sn_world_get_time(const sn_world* world);
uint64_t sn_world_get_step_count(const sn_world* world);

// True once a step produced a non-finite or runaway state (see divergence_speed). Stays true until the
// state is replaced (sn_world_clear_divergence after fixing bodies, or restoring a snapshot).
bool sn_world_is_diverged(const sn_world* world);
// Clear the diverged flag once the state is fixed; fails (keeping the flag) with SN_ERR_NOT_FINITE if
// any body state is still not finite, or SN_ERR_DIVERGED if a body still moves faster than
// divergence_speed (which the next step would flag again).
sn_error sn_world_clear_divergence(sn_world* world);

// What the solver did in the last step, for tests and benchmarks.
typedef struct sn_solver_stats
{
	int rows;                        // constraint rows built in the last (sub)step (PGS, TGS, DIRECT)
	int direct_rounds;               // DIRECT: active-set rounds (factorisations) in the last (sub)step
	int direct_dependent_rows;       // DIRECT: rows found to repeat others in the last factorisation
	int direct_graph_edges;          // DIRECT: pairs of joints sharing a dynamic body
	int direct_factor_blocks;        // DIRECT: off-diagonal blocks of the factor (edges plus fill-in)
	uint64_t direct_unsettled_steps; // DIRECT: steps whose active set did not settle (bounds still held)
	int artic_drive_path_windows;    // TGS windows of the last step whose drives took the articulation drive
									 // path (every dof driven, nothing else acting: one pass of M + A)
	int artic_drive_path_leaves;     // times in the last step such a solve went back to the general rows (a
									 // drive at its force or speed bound)
	int artic_drive_path_dense;      // solves of the last step on the drive path whose windows multiplied by
									 // the inverse of M + A (a fixed base of at most 16 dofs) instead
	int artic_structured_holds;      // TGS hold passes of the last step solved by one pass of the inertia
									 // (every dof held by one row: drives, limits, mimic followers) rather
									 // than by factoring J W J^T
	int artic_midpoint_passes;       // articulation solves of the last step whose predicted midpoint speeds
									 // missed, so that a second articulated-body pass took the velocity
									 // terms at their own midpoint (sn_articulation_def.midpoint_velocity_terms)
} sn_solver_stats;
sn_solver_stats sn_world_get_solver_stats(const sn_world* world);

// Joints that broke in the last step. The pointer is valid until the next step or destroy call.
const sn_joint_break_event* sn_world_get_break_events(const sn_world* world, int* count);

// Live bodies and joints in creation-slot order. Writes at most capacity ids, returns the total count.
// The bodies of articulation links (SN_BODY_LINK) are not counted or listed here: they belong to their
// articulations (sn_articulation_get_link_body), so a host's limits and frames count what users create.
int sn_world_get_bodies(const sn_world* world, sn_body_id* ids, int capacity);
int sn_world_get_joints(const sn_world* world, sn_joint_id* ids, int capacity);
int sn_world_get_body_count(const sn_world* world);
int sn_world_get_joint_count(const sn_world* world);

sn_memory_stats sn_world_get_memory_stats(const sn_world* world);
// Dynamic bodies and articulations that are awake (the rest sleep: types.h, sn_sleep_settings).
int sn_world_get_awake_body_count(const sn_world* world);
int sn_world_get_awake_articulation_count(const sn_world* world);

// A 64-bit FNV-1a hash over every body's and joint's dynamic state, the articulations' and the contacts'
// (pairs with contact points: manifolds, feature ids, warm starts) as bit patterns, for determinism
// checks: the same inputs give the same hash on every run and build.
uint64_t sn_world_state_hash(const sn_world* world);

// Snapshots: the whole world (settings, every object's model and state, warm starts, free slots) in a
// versioned little-endian byte format. A world created from a snapshot continues bit for bit like the
// original, and every id of the original stays valid in it. Bytes from outside are validated like defs:
// a malformed, truncated or foreign snapshot gives SN_ERR_BAD_SNAPSHOT (or the field's own error) and
// creates nothing. The allocator of the new world comes from `allocator` (NULL: malloc and free).
// Versions: 2 articulations; 3 implicit_alpha and implicit_beta; 4 warm_start; 5 shapes, link bodies, the
// contact pair cache with its manifolds and warm starts, joints' collide_connected, articulations'
// self_collision; 6 articulations' max_correction_speed and drives' max_velocity; 7 contact settings,
// contact impulses as each point's impulse over the last step, sleep settings and sleep state; 8 the
// articulations' last free accelerations (their midpoint velocity terms predict from them); 9 the free
// accelerations of the solve before the last as well (the prediction extrapolates).
#define SN_SNAPSHOT_VERSION 9
// Bytes sn_world_snapshot_write needs.
size_t sn_world_snapshot_size(const sn_world* world);
// Write the snapshot; *written (if not NULL) receives its size. SN_ERR_CAPACITY if it does not fit.
sn_error sn_world_snapshot_write(const sn_world* world, void* buffer, size_t capacity, size_t* written);
sn_error sn_world_create_from_snapshot(const void* data, size_t size, const sn_allocator* allocator,
									   sn_world** out_world);
// The format version a snapshot's header gives (SN_SNAPSHOT_VERSION for this build's), or 0 when the
// bytes do not start like a snapshot. Reads the header only, checks nothing else: it tells a snapshot of
// another version (which sn_world_create_from_snapshot refuses) apart from damaged bytes, for a message.
uint32_t sn_snapshot_version(const void* data, size_t size);

#ifdef __cplusplus
}
#endif

#endif
