// Sinew core: reduced-coordinate articulations (trees of links in joint coordinates, Featherstone's
// articulated-body algorithm), implicit PD drives (after PhysX's notes "Implicit Spring Joint Drives")
// and mimic joints (after PhysX's notes "Mimic Joints").
//
// An articulation is created whole from an array of link defs. Link 0 is the base (fixed to the world
// or floating); every other link names a parent with a smaller index, so the links form a tree. Each
// non-base link has one inbound joint whose frame is given on both sides; its axis is the joint frame's
// x axis, as for maximal joints. Dofs are numbered in link order: a revolute or prismatic joint has one,
// a spherical joint three (rotation-vector components in the parent-side joint frame), a fixed joint
// none. The base's six floating dofs are not in that numbering; use the base-pose calls.
//
// Rows that act on dofs (limits, drives, mimic joints, joint friction) are solved in the world's PGS or
// TGS iterations, with responses from unit test impulses propagated through the tree (Mirtich's test
// impulses, as PhysX's mimic-joint notes use them). Worlds
// whose solver is XPBD or DIRECT step their articulations with the TGS path.
//
// Every link is also a body of the world (Sinew's links are bodies, as PhysX's articulation links are
// rigid bodies): sn_articulation_get_link_body names it with an ordinary sn_body_id, of type
// SN_BODY_LINK, made and destroyed with the articulation. Shapes go on it (shape.h), contacts and queries
// name it, body getters read the link's state and sn_body_apply_force acts on the link; it is not counted
// by sn_world_get_bodies. The solvers do not yet couple articulations to maximal-coordinate bodies: a
// maximal joint onto a link's body is refused (SN_ERR_UNSUPPORTED), and contacts exert no forces yet.
//
// Spherical joints: the three dofs are the rotation vector (parent-side joint frame components) of
// the joint's rotation, kept internally as a unit quaternion; the three speeds are the components of
// the child's angular velocity relative to the parent, along the parent-side joint axes. Limits and
// drives on a spherical dof use that speed as the component's rate (exact for rotation about one axis).
// Spherical positions read back as the shortest rotation vector (angle in [0, pi]), whatever was set.
//
// Joint velocities carried between steps are clamped to max_joint_velocity, and so is the distance a
// dof moves in one step (max_joint_velocity * dt).
#ifndef SINEW_ARTICULATION_H
#define SINEW_ARTICULATION_H

#include "sinew/world.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sn_link_joint_type
{
	SN_LINK_JOINT_FIXED = 0,     // no dof
	SN_LINK_JOINT_REVOLUTE = 1,  // one dof: angle about the joint x axis, rad
	SN_LINK_JOINT_PRISMATIC = 2, // one dof: translation along the joint x axis, m
	SN_LINK_JOINT_SPHERICAL = 3, // three dofs: rotation vector, rad
} sn_link_joint_type;

typedef enum sn_drive_type
{
	// Stiffness in N/m or N*m/rad, damping in N*s/m or N*m*s/rad: the drive is a force.
	SN_DRIVE_FORCE = 0,
	// Stiffness in 1/s^2, damping in 1/s: the drive is an acceleration scaled by the dof's response.
	SN_DRIVE_ACCELERATION = 1,
} sn_drive_type;

// An implicit PD drive on one dof: F = stiffness (target_position - q) + damping (target_velocity - qdot),
// solved implicitly (PhysX's implicit drive notes) so very large gains stay stable, clamped to max_force.
// max_velocity is the actuator's speed: the drive never pushes the dof faster than it (in either
// direction); it still brakes a dof that something else made faster, and the dof itself is not capped
// (max_joint_velocity does that).
typedef struct sn_drive
{
	bool enabled;
	sn_drive_type type;
	double stiffness;       // >= 0
	double damping;         // >= 0
	double target_position; // m or rad
	double target_velocity; // m/s or rad/s
	double max_force;       // N or N*m, >= 0, may be INFINITY
	double max_velocity;    // m/s or rad/s, > 0, may be INFINITY (default)
} sn_drive;

#define SN_LINK_MAX_DOFS 3
// Links per articulation (SN_ERR_CAPACITY above).
#define SN_ARTICULATION_MAX_LINKS 4096
// Dofs of one articulation that may carry rows (limit, drive, friction, mimic) at once, and mimic joints
// of one articulation: the solver keeps a dense response matrix over them (SN_ERR_CAPACITY above).
#define SN_ARTICULATION_MAX_ROW_DOFS 512

typedef struct sn_link_def
{
	// Parent link index (< this link's index); -1 for the base (link 0 only).
	int parent;
	sn_link_joint_type joint_type;
	// Joint frame in the parent link's frame and in this link's frame (m, unit quaternion).
	sn_transform parent_frame;
	sn_transform child_frame;
	// Mass (kg, > 0), inertia about the centre of mass in link axes (kg*m^2, symmetric positive
	// definite) and centre of mass in the link frame (m).
	double mass;
	sn_mat33 inertia;
	sn_vec3 center_of_mass;
	// Per dof of the inbound joint (index 0..dofs-1).
	sn_limit limit[SN_LINK_MAX_DOFS]; // m or rad; for spherical joints a box on the rotation vector
	sn_drive drive[SN_LINK_MAX_DOFS];
	double joint_damping;                      // viscous, N*s/m or N*m*s/rad, >= 0 (implicit, per dof)
	double joint_friction;                     // Coulomb, N or N*m, >= 0 (a bounded row per dof)
	double armature;                           // added dof inertia, kg or kg*m^2, >= 0
	double max_joint_velocity;                 // m/s or rad/s, > 0, may be INFINITY (default)
	double initial_position[SN_LINK_MAX_DOFS]; // m or rad
	double initial_velocity[SN_LINK_MAX_DOFS]; // m/s or rad/s
	uint64_t user_data;
} sn_link_def;

typedef struct sn_articulation_def
{
	// Fixed base: link 0 is welded to the world at base_pose. Floating: link 0 moves freely. Default true.
	bool fixed_base;
	// World pose of link 0's frame. Default identity.
	sn_transform base_pose;
	// Floating base only: velocity of link 0's frame origin (m/s) and angular velocity (rad/s), world.
	sn_vec3 base_linear_velocity;
	sn_vec3 base_angular_velocity;
	// Multiplies gravity for every link. Default 1.
	double gravity_scale;
	// Evaluate the velocity-dependent forces (Coriolis, centrifugal, gyroscopic) at the step's midpoint
	// joint speeds, predicted from the last two steps' free accelerations (kept in snapshots): one pass of
	// the articulated-body algorithm per step (per substep), as with false. A second, cheaper pass at the
	// same pose is added on the first step after the state was set (creation, a setter, sleep) and on
	// steps whose prediction proves poor (a whip's tip: about 40% more instructions on such steps;
	// sn_solver_stats.artic_midpoint_passes counts the misses). With false they are taken at the start
	// speeds (semi-implicit Euler, as other reduced-coordinate engines do): statics held by rows are
	// exact, but long free chains gain energy. Released horizontally at 1 ms, a 50-link chain reaches 140%
	// of its potential drop in 10 s (9% with true) and a 200-link one diverges after 14 s (with true it
	// does too from two of six release angles within 0.2 rad of horizontal, this one among them, and runs
	// 30 s from the others, its energy wandering by tens of percent). Default true.
	bool midpoint_velocity_terms;
	// A rigid limit or mimic row whose position error is not zero (a joint started outside its limit,
	// drift) is corrected without adding speed: pseudo velocities move the positions and are dropped
	// (split impulse), removing the world's erp (a mimic: its own erp) of the error per step, but never
	// faster than this speed along the row (m/s or rad/s; a mimic row: of its dofs[0]). Default 1. > 0,
	// may be INFINITY.
	double max_correction_speed;
	// Whether the articulation's own links collide with each other. A link never collides with its parent
	// (the two links of one joint) either way. Default false: a robot's links do not collide with each
	// other unless asked (URDF importers and MuJoCo's default of not colliding a body with its parent,
	// PhysX's and Isaac's self-collision switch).
	bool self_collision;
	uint64_t user_data;
} sn_articulation_def;

sn_articulation_def sn_default_articulation_def(void);
sn_link_def sn_default_link_def(void);
sn_drive sn_default_drive(void);

// Create an articulation from link_count >= 1 link defs (validated as a whole; nothing is created on
// failure). Link 0's parent must be -1 and its joint fields are ignored (its mass and inertia are
// validated). Every other link's parent must be a smaller index, which also makes cycles impossible;
// violations give SN_ERR_TOPOLOGY. For each dof of a link's joint (dofs 0..n-1 of limit, drive,
// initial_*), limits, drives and initial values are validated; entries beyond the joint's dofs are
// ignored.
sn_error sn_create_articulation(sn_world* world, const sn_articulation_def* def, const sn_link_def* links,
								int link_count, sn_articulation_id* out_id);
// Destroy an articulation and its mimic joints.
sn_error sn_destroy_articulation(sn_world* world, sn_articulation_id id);
// Sleeping (types.h, sn_sleep_settings): whether the articulation's island is awake, and waking it.
bool sn_articulation_is_awake(const sn_world* world, sn_articulation_id id);
sn_error sn_articulation_wake(sn_world* world, sn_articulation_id id);
bool sn_articulation_is_valid(const sn_world* world, sn_articulation_id id);
// Live articulations in slot order. Writes at most capacity ids, returns the total count.
int sn_world_get_articulations(const sn_world* world, sn_articulation_id* ids, int capacity);
int sn_world_get_articulation_count(const sn_world* world);
// The articulation's def as it is now (base pose and velocity are the current state).
sn_articulation_def sn_articulation_get_def(const sn_world* world, sn_articulation_id id);
// A link's def as it is now (limits and drives as set; initial_* are the current joint state).
sn_error sn_articulation_get_link_def(const sn_world* world, sn_articulation_id id, int link, sn_link_def* out);
bool sn_articulation_is_fixed_base(const sn_world* world, sn_articulation_id id);
uint64_t sn_articulation_get_user_data(const sn_world* world, sn_articulation_id id);
uint64_t sn_articulation_get_link_user_data(const sn_world* world, sn_articulation_id id, int link);

int sn_articulation_get_link_count(const sn_world* world, sn_articulation_id id);
int sn_articulation_get_dof_count(const sn_world* world, sn_articulation_id id);
// First dof index of a link's inbound joint and its number of dofs (0 for the base and fixed joints).
int sn_articulation_get_link_dof_offset(const sn_world* world, sn_articulation_id id, int link);
int sn_articulation_get_link_dof_count(const sn_world* world, sn_articulation_id id, int link);
int sn_articulation_get_link_parent(const sn_world* world, sn_articulation_id id, int link);
sn_link_joint_type sn_articulation_get_link_joint_type(const sn_world* world, sn_articulation_id id, int link);

// Joint state, all dofs at once (arrays of dof_count) or one dof. Getters accept count >= dof_count;
// setters need count == dof_count. Setting positions moves the links at once (poses are recomputed).
// Single-dof getters return 0 for an invalid id or dof.
sn_error sn_articulation_get_joint_positions(const sn_world* world, sn_articulation_id id, double* q, int count);
sn_error sn_articulation_set_joint_positions(sn_world* world, sn_articulation_id id, const double* q, int count);
sn_error sn_articulation_get_joint_velocities(const sn_world* world, sn_articulation_id id, double* qd, int count);
sn_error sn_articulation_set_joint_velocities(sn_world* world, sn_articulation_id id, const double* qd, int count);
sn_error sn_articulation_set_joint_position(sn_world* world, sn_articulation_id id, int dof, double q);
sn_error sn_articulation_set_joint_velocity(sn_world* world, sn_articulation_id id, int dof, double qd);
double sn_articulation_get_joint_position(const sn_world* world, sn_articulation_id id, int dof);
double sn_articulation_get_joint_velocity(const sn_world* world, sn_articulation_id id, int dof);

// The body of a link (type SN_BODY_LINK): a null id for an invalid articulation or link.
sn_body_id sn_articulation_get_link_body(const sn_world* world, sn_articulation_id id, int link);
// Self-collision of the articulation's links (see sn_articulation_def.self_collision); takes effect in
// the next step.
sn_error sn_articulation_set_self_collision(sn_world* world, sn_articulation_id id, bool enabled);
bool sn_articulation_get_self_collision(const sn_world* world, sn_articulation_id id);

// Link kinematics, world frame: the pose of a link's frame and the velocity of its origin.
sn_transform sn_articulation_get_link_pose(const sn_world* world, sn_articulation_id id, int link);
sn_error sn_articulation_get_link_velocity(const sn_world* world, sn_articulation_id id, int link,
										   sn_vec3* linear_velocity, sn_vec3* angular_velocity);
sn_error sn_articulation_set_base_pose(sn_world* world, sn_articulation_id id, sn_transform pose);
// Floating base only (SN_ERR_WRONG_TYPE for a fixed base): velocity of link 0's origin and angular
// velocity, world.
sn_error sn_articulation_set_base_velocity(sn_world* world, sn_articulation_id id, sn_vec3 linear_velocity,
										   sn_vec3 angular_velocity);
// Kinetic energy of the moving links (J).
double sn_articulation_get_kinetic_energy(const sn_world* world, sn_articulation_id id);

// External force (N) at a world point and torque (N*m) on a link for the next step.
sn_error sn_articulation_apply_link_force(sn_world* world, sn_articulation_id id, int link, sn_vec3 force,
										  sn_vec3 world_point);
sn_error sn_articulation_apply_link_torque(sn_world* world, sn_articulation_id id, int link, sn_vec3 torque);
// Generalised force on a dof for the next step (N or N*m).
sn_error sn_articulation_apply_joint_force(sn_world* world, sn_articulation_id id, int dof, double force);

// Force (N) and torque (N*m about the joint anchor) that the parent applies to a link through its inbound
// joint in the last step, world frame: the whole transmitted wrench, so its component along a dof's axis
// is that dof's total generalised force (applied, damping, drive, limit, friction, mimic). The anchor is
// the child-side joint frame origin where the step began. For link 0 of a fixed base: what the world
// applies to the base (about the base origin); for a floating base: zero.
sn_error sn_articulation_get_link_incoming_force(const sn_world* world, sn_articulation_id id, int link, sn_vec3* force,
												 sn_vec3* torque);

// Unit test impulse response r_ij (PhysX's mimic-joint notes): the change of dof i's speed (m/s or
// rad/s) per unit impulse (N*s or N*m*s) on dof j, at the current state, as the solver of the next step
// sees it (armature and implicit joint damping over one substep included): element (i, j) of the inverse
// joint-space inertia. Zero between sub-trees of a fixed base. Costs O(links). Runs in the world's own
// step scratch (world.h), which it may have to create or grow: SN_ERR_NO_MEMORY (nothing changed) if it
// cannot.
sn_error sn_articulation_compute_response(sn_world* world, sn_articulation_id id, int dof_i, int dof_j,
										  double* response);

// Drives and limits per dof.
sn_error sn_articulation_set_drive(sn_world* world, sn_articulation_id id, int dof, const sn_drive* drive);
sn_drive sn_articulation_get_drive(const sn_world* world, sn_articulation_id id, int dof);
sn_error sn_articulation_set_drive_target(sn_world* world, sn_articulation_id id, int dof, double position,
										  double velocity);
// Many targets in one call; validated as a whole (nothing changes on failure). velocities may be NULL
// (targets keep their velocity). A later entry on the same dof overrides an earlier one.
sn_error sn_articulation_set_drive_targets(sn_world* world, sn_articulation_id id, const int* dofs,
										   const double* positions, const double* velocities, int count);
// The validation of sn_articulation_set_drive_targets alone: the same error and detail line, and nothing
// changed but the detail line.
sn_error sn_articulation_check_drive_targets(sn_world* world, sn_articulation_id id, const int* dofs,
											 const double* positions, const double* velocities, int count);
// The force each drive actually applied in the last step (N or N*m), after clamping, per dof.
sn_error sn_articulation_get_drive_efforts(const sn_world* world, sn_articulation_id id, double* efforts, int count);
// A limit on a dof (m or rad; any finite range for revolute joints, whose positions are not wrapped).
sn_error sn_articulation_set_limit(sn_world* world, sn_articulation_id id, int dof, sn_limit limit);
sn_limit sn_articulation_get_limit(const sn_world* world, sn_articulation_id id, int dof);

// Mimic joints: q_0 + sum_{i>=1} gearing[i] q_i + offset = 0 over dofs of one articulation (PhysX's
// mimic-joint notes, eq. 3 and its N-dof form, eq. 18), one row, anywhere in the tree. Dof indices out of
// range or repeated give SN_ERR_TOPOLOGY. Destroying the articulation destroys its mimic joints.
#define SN_MIMIC_MAX_DOFS 8

typedef struct sn_mimic_def
{
	sn_articulation_id articulation;
	int dof_count;                     // 2..SN_MIMIC_MAX_DOFS
	int dofs[SN_MIMIC_MAX_DOFS];       // distinct dof indices; dofs[0] is q_0 (A)
	double gearing[SN_MIMIC_MAX_DOFS]; // G_i for i >= 1 (gearing[0] is 1 and ignored)
	double offset;                     // gamma, m or rad
	double erp;                        // Baumgarte factor for the hard row, [0, 1]. Default 0.2
	sn_soft soft;                      // rigid (default) or compliant
	double max_force;                  // N or N*m on dof 0, >= 0, may be INFINITY
	uint64_t user_data;
} sn_mimic_def;

sn_mimic_def sn_default_mimic_def(void);
sn_error sn_create_mimic_joint(sn_world* world, const sn_mimic_def* def, sn_mimic_id* out_id);
sn_error sn_destroy_mimic_joint(sn_world* world, sn_mimic_id id);
bool sn_mimic_joint_is_valid(const sn_world* world, sn_mimic_id id);
// Coupling force on dof 0 in the last step (N or N*m): the row impulse divided by the step. Dof i
// received gearing[i] times it.
double sn_mimic_joint_get_force(const sn_world* world, sn_mimic_id id);
// Current constraint value q_0 + sum G_i q_i + offset (m or rad).
double sn_mimic_joint_get_error(const sn_world* world, sn_mimic_id id);
// The def it was created with (gearing[0] reads 1).
sn_mimic_def sn_mimic_joint_get_def(const sn_world* world, sn_mimic_id id);
// Live mimic joints in slot order. Writes at most capacity ids, returns the total count.
int sn_world_get_mimic_joints(const sn_world* world, sn_mimic_id* ids, int capacity);

#ifdef __cplusplus
}
#endif

#endif
