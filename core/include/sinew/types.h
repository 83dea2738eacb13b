// Sinew core: enums and definition structs. Every def has a default function (sn_default_*_def) that is
// the one place its defaults live; units are in the comments. Create calls validate every field.
#ifndef SINEW_TYPES_H
#define SINEW_TYPES_H

#include "sinew/base.h"
#include "sinew/id.h"
#include "sinew/math.h"

#ifdef __cplusplus
extern "C" {
#endif

// The solver a world steps with. All solvers read the same defs; see world.h for what each does.
// The largest joint or link frame offset the core accepts, m (sn_joint_base frames, sn_link_def
// frames): larger ones are refused with SN_ERR_INVALID_ARGUMENT. A rigid body a million kilometres
// across is no model of anything, and the bound keeps every product the step forms of such offsets
// (lever arms, their squares in effective masses) far from overflow, so a finite input stays finite.
#define SN_MAX_OFFSET 1e9

typedef enum sn_solver
{
	SN_SOLVER_PGS = 0,    // projected Gauss-Seidel sequential impulses, Baumgarte bias (erp)
	SN_SOLVER_TGS = 1,    // temporal Gauss-Seidel: each position iteration advances positions by h / n
	SN_SOLVER_XPBD = 2,   // extended position-based dynamics, substeps of position corrections (Mueller 2020)
	SN_SOLVER_DIRECT = 3, // Faure's compliant system solved exactly each step (sparse LDL^T)
	SN_SOLVER_COUNT
} sn_solver;

// Name of a solver in lower case ("pgs", "tgs", ...), or "unknown".
const char* sn_solver_name(sn_solver solver);

// How two shapes' friction coefficients (or restitutions) combine into their contact's (the combine
// modes of PhysX and Jolt; Box2D's defaults are the geometric mean for friction and the maximum for
// restitution).
typedef enum sn_mix_rule
{
	SN_MIX_GEOMETRIC_MEAN = 0, // sqrt(a b)
	SN_MIX_MIN = 1,            // min(a, b)
	SN_MIX_MAX = 2,            // max(a, b)
	SN_MIX_AVERAGE = 3,        // (a + b) / 2
	SN_MIX_MULTIPLY = 4,       // a b
	SN_MIX_COUNT
} sn_mix_rule;

// How contacts behave in a world (collision.h describes contacts; shape.h, materials).
typedef struct sn_contact_settings
{
	// Penetration left uncorrected, m: rigid contacts push shapes apart only beyond it, so that resting
	// contacts stay touching from step to step instead of flickering in and out. Default 0.0005 (half a
	// millimetre: a tenth of Box2D's 5 mm, since robot parts have millimetre features). Range [0, 0.1].
	// XPBD does not use it: its substeps restart their multipliers, so penetration it left alone would
	// add up in a stack; it pushes every overlap out (solver/xpbd_contacts.c).
	double slop;
	// The fastest a penetration is corrected, m/s: the split impulse's pseudo speed is capped at it, so a
	// deep overlap (a body created inside another) separates gently instead of jumping. XPBD: the push
	// out of an overlap per substep is at most this times the substep. Default 1. Range (0, 1e3].
	double max_push_speed;
	// Bounces happen only from approach speeds above this, m/s: slower impacts are inelastic, so a
	// resting body with restitution does not jitter. Default 1 (Box2D's). Range [0, 1e3].
	double restitution_threshold;
	// Default SN_MIX_GEOMETRIC_MEAN.
	sn_mix_rule friction_mix;
	// Default SN_MIX_MAX.
	sn_mix_rule restitution_mix;
} sn_contact_settings;

// Sleeping (Box2D's and PhysX's): bodies and articulations that touch or are jointed form islands; an
// island whose every member has moved slower than both speeds for time_to_sleep falls asleep: it costs
// nothing per step until something touches it, a force or setter acts on it, a drive target changes or it
// is woken (sn_body_wake, sn_articulation_wake). Sleeping never changes what awake islands do.
typedef struct sn_sleep_settings
{
	// Default false (a host turns it on for real-time worlds).
	bool enabled;
	// Centre-of-mass speed (and prismatic joint speed, and a floating base's speed) below which a member
	// rests, m/s. Default 0.05 (Box2D's). Range [0, 1e3].
	double linear_speed;
	// Angular speed (and revolute and spherical joint speed) below which a member rests, rad/s. Default
	// 0.05 (about 3 degrees per second). Range [0, 1e3].
	double angular_speed;
	// Time every member of an island must rest before it sleeps, s. Default 0.5 (Box2D's). Range (0, 1e6].
	double time_to_sleep;
} sn_sleep_settings;

typedef struct sn_world_def
{
	// Gravity acceleration, m/s^2. Default (0, 0, -9.81): z is up.
	sn_vec3 gravity;
	// Time advanced by one sn_world_step, s. Default 0.001 (1 kHz). Range (0, 1].
	double time_step;
	// Default SN_SOLVER_TGS.
	sn_solver solver;
	// PGS: Gauss-Seidel sweeps with position bias. TGS: sub-advances of h / n, one sweep each (PhysX's
	// implicit drive notes, eq. 40). XPBD: XPBD substeps of h / n (Mueller et al. 2020), each with a
	// forward and a backward sweep of position corrections over every joint. DIRECT: unused (the solve is
	// exact). Default 8. Range [1, 1000].
	int position_iterations;
	// Sweeps after positions are advanced, without position bias. PGS continues implicit springs; TGS
	// freezes them (as PhysX's implicit drive notes do). XPBD: 0 skips the joints' velocity pass (damping
	// of soft rows, six-axis motors), any other value runs it once per XPBD substep; the contacts' velocity
	// pass (friction, restitution) runs in every substep. DIRECT: unused. Default 1. Range [0, 1000].
	int velocity_iterations;
	// The step is divided into this many equal sub-steps, each a complete solve. Default 1 ([1, 1000]).
	int substeps;
	// Error reduction parameter (Baumgarte): the fraction of a hard row's position error removed per
	// (sub)step. PGS and TGS: by split impulse. DIRECT: hard rows solve J v = -erp C / h. XPBD: unused
	// (positions are projected onto the constraints directly). Default 0.2. Range [0, 1].
	double erp;
	// PGS and TGS: the fraction of each row's last impulse a solve starts from (warm start). Default 1,
	// which a long chain needs to hold its tension from step to step. Below 1 damps the impulses that
	// redundant rows (closed loops) pass between each other, which otherwise drift: TGS's one sweep per
	// sub-advance holds a 20x20 sheet of hinges only with about 0.9 (bench_chain --warm-start). Range [0, 1].
	double warm_start;
	// DIRECT (Faure's compliant plugin): implicit velocity factor alpha, the weight of the end-of-step
	// constraint force in the step's average force (1: backward Euler; 1/2: trapezoidal). Default 1.
	// Range [0.5, 1].
	double implicit_alpha;
	// DIRECT (Faure's compliant plugin): implicit position factor beta, positions advance by
	// h (v + beta dv). Default 1. Range [0.5, 1]. Below 1/2 either factor makes stiff soft rows unstable.
	// Other solvers ignore both.
	double implicit_beta;
	// Speed (m/s, or rad/s for spin) above which a body counts as numerically blown up. Default 1e6.
	double divergence_speed;
	// Mixed into the generation of every id this world hands out, so that an id from a world with
	// another tag does not validate here (it fails with SN_ERR_INVALID_ID). A host of many worlds gives
	// each its own tag. Default 0. A world created from a snapshot keeps the original's tag.
	uint32_t id_tag;
	// Contacts: allowed penetration, correction speed, restitution threshold, material mixing.
	sn_contact_settings contact;
	// Islands and sleeping.
	sn_sleep_settings sleep;
	// Memory hooks; NULL functions mean malloc and free.
	sn_allocator allocator;
} sn_world_def;

typedef enum sn_body_type
{
	SN_BODY_STATIC = 0,    // never moves, infinite mass
	SN_BODY_KINEMATIC = 1, // moves with its set velocity, infinite mass
	SN_BODY_DYNAMIC = 2,   // moved by forces and joints
	// An articulation link (articulation.h): made and destroyed with its articulation, never by
	// sn_create_body. Its pose, velocities and mass are the link's, read from the articulation; it
	// carries shapes and takes applied forces like any body, but setters that would move or reshape it
	// fail with SN_ERR_WRONG_TYPE (move the articulation instead).
	SN_BODY_LINK = 3,
} sn_body_type;

typedef struct sn_body_def
{
	// Default SN_BODY_DYNAMIC.
	sn_body_type type;
	// Pose of the body frame in the world (m, unit quaternion). Default identity.
	sn_transform pose;
	// Velocity of the centre of mass, m/s, world frame. Default zero.
	sn_vec3 linear_velocity;
	// Angular velocity, rad/s, world frame. Default zero.
	sn_vec3 angular_velocity;
	// Mass, kg (> 0 for dynamic bodies; ignored for static and kinematic ones). Default 1.
	double mass;
	// Inertia tensor about the centre of mass in body axes, kg*m^2, symmetric positive definite.
	// Default that of a 1 kg solid sphere of radius 0.1 m: diag(0.004, 0.004, 0.004).
	sn_mat33 inertia;
	// Centre of mass in the body frame, m. Default zero.
	sn_vec3 center_of_mass;
	// Velocity damping rates, 1/s (>= 0): v <- v / (1 + h * rate) each step. Default 0.
	double linear_damping;
	double angular_damping;
	// Multiplies the world's gravity for this body. Default 1.
	double gravity_scale;
	// Opaque to the core.
	uint64_t user_data;
} sn_body_def;

// Softness of a constraint row: how far it may yield under load. One primitive serves locks, limits,
// springs and drives. Rigid rows are hard constraints corrected by the world's erp.
//
// The three soft forms are one physics, mapped in one place (core/src/constraint/soft.h) and meaning the
// same in every solver. For a row with position error C, rate Cdot and inverse effective mass
// K = J M^-1 J^T:
//   force = -k C - b Cdot                      stiffness form (k, b)
//   k = m_eff w^2, b = 2 m_eff zeta w          frequency form (f, zeta), w = 2 pi f, m_eff = 1/K
//   force = -(C + d Cdot) / c                  compliance form (c, d) of Faure's compliant plugin:
//                                              k = 1/c, b = d/c
// XPBD's compliance alpha is c = 1/k (Mueller et al. 2020). A static load F deflects a soft row by
// F c = F / k in every solver and at every time step.
typedef enum sn_soft_kind
{
	SN_SOFT_RIGID = 0,
	// stiffness k (N/m, or N*m/rad on angular rows) and damping b (N*s/m, or N*m*s/rad): the row acts
	// as the force -k C - b dC/dt, integrated implicitly so any k stays stable.
	SN_SOFT_STIFFNESS = 1,
	// natural frequency (Hz) and damping ratio of the row's own effective mass: k = m_eff (2 pi f)^2,
	// b = 2 m_eff zeta (2 pi f). Mass-independent tuning.
	SN_SOFT_FREQUENCY = 2,
	// compliance c (m/N, or rad/(N*m)) and damping time d (s) of Faure's compliant plugin: the row acts
	// as the force -(C + d dC/dt) / c. c = 0 is a hard row, the same as SN_SOFT_RIGID (d is then unused).
	SN_SOFT_COMPLIANCE = 3,
} sn_soft_kind;

typedef struct sn_soft
{
	sn_soft_kind kind;
	double stiffness;     // SN_SOFT_STIFFNESS, >= 0
	double damping;       // SN_SOFT_STIFFNESS, >= 0
	double frequency;     // SN_SOFT_FREQUENCY, Hz, >= 0
	double damping_ratio; // SN_SOFT_FREQUENCY, >= 0
	double compliance;    // SN_SOFT_COMPLIANCE, m/N or rad/(N*m), finite, >= 0
	double damping_time;  // SN_SOFT_COMPLIANCE, s, finite, >= 0
} sn_soft;

static inline sn_soft sn_soft_rigid(void)
{
	sn_soft s = { SN_SOFT_RIGID, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0 };
	return s;
}
static inline sn_soft sn_soft_stiffness(double stiffness, double damping)
{
	sn_soft s = { SN_SOFT_STIFFNESS, stiffness, damping, 0.0, 0.0, 0.0, 0.0 };
	return s;
}
static inline sn_soft sn_soft_frequency(double frequency_hz, double damping_ratio)
{
	sn_soft s = { SN_SOFT_FREQUENCY, 0.0, 0.0, frequency_hz, damping_ratio, 0.0, 0.0 };
	return s;
}
// Faure's (c, d): compliance c (m/N or rad/(N*m)) and damping time d (s). Negative or non-finite
// values are rejected (SN_ERR_NEGATIVE_VALUE, SN_ERR_NOT_FINITE) by every call that takes a softness.
static inline sn_soft sn_soft_compliance(double compliance, double damping_time)
{
	sn_soft s = { SN_SOFT_COMPLIANCE, 0.0, 0.0, 0.0, 0.0, compliance, damping_time };
	return s;
}

// The six coordinates of a joint, measured from frame A to frame B in frame A's axes. Translations are
// the components of (origin B - origin A). Rotations decompose the relative rotation as swing * twist:
// RX is the twist angle about x; RY and RZ are the y and z components of the swing rotation vector
// (which has no x component). For small angles they are the rotations about y and z.
typedef enum sn_axis
{
	SN_AXIS_X = 0,
	SN_AXIS_Y = 1,
	SN_AXIS_Z = 2,
	SN_AXIS_RX = 3,
	SN_AXIS_RY = 4,
	SN_AXIS_RZ = 5,
	SN_AXIS_COUNT = 6
} sn_axis;

typedef enum sn_joint_type
{
	SN_JOINT_FIXED = 0,
	SN_JOINT_HINGE = 1,       // turns about frame x (SN_AXIS_RX)
	SN_JOINT_PRISMATIC = 2,   // slides along frame x (SN_AXIS_X)
	SN_JOINT_SPHERICAL = 3,   // point contact, elliptic swing cone and twist limits
	SN_JOINT_DISTANCE = 4,    // keeps the anchors' distance (SN_AXIS_X is the length)
	SN_JOINT_CYLINDRICAL = 5, // slides along and turns about frame x (SN_AXIS_X and SN_AXIS_RX)
	SN_JOINT_SIX_AXIS = 6,    // each of the six axes locked, limited or free
	SN_JOINT_TYPE_COUNT
} sn_joint_type;

// Name of a joint type in lower case ("hinge", ...), or "unknown".
const char* sn_joint_type_name(sn_joint_type type);

// A range limit on one axis: lower <= coordinate <= upper (m or rad). Soft limits yield like a spring.
typedef struct sn_limit
{
	bool enabled;
	double lower;
	double upper;
	sn_soft soft; // default rigid
} sn_limit;

// A velocity motor: drives the axis speed to `speed` (m/s or rad/s) with at most `max_force`
// (N or N*m, >= 0, may be INFINITY). In XPBD a position target advanced by speed each substep (joint.h).
typedef struct sn_motor
{
	bool enabled;
	double speed;
	double max_force;
} sn_motor;

// A spring towards `target` (m or rad) with the given softness. A rigid spring is a position servo.
// The force is capped at max_force (N or N*m, >= 0, may be INFINITY).
typedef struct sn_spring
{
	bool enabled;
	double target;
	sn_soft soft;
	double max_force;
} sn_spring;

// Fields every joint def has.
typedef struct sn_joint_base
{
	// The two bodies; a null id stands for the world (ground). Not both null, not the same body.
	sn_body_id body_a;
	sn_body_id body_b;
	// Joint frames in body A's and body B's frames (in the world frame for the world). The x axis is
	// the joint axis. Quaternions are normalised on creation; a zero quaternion is rejected, and so is
	// an offset farther than SN_MAX_OFFSET from its body's origin.
	sn_transform frame_a;
	sn_transform frame_b;
	// Softness of the rows that lock axes. Default rigid.
	sn_soft lock_soft;
	// The joint breaks when the force it applies exceeds break_force (N) or the torque about its anchor
	// exceeds break_torque (N*m). Default INFINITY (never).
	double break_force;
	double break_torque;
	// A disabled joint exerts nothing. Default true.
	bool enabled;
	// Whether the two bodies' shapes still collide with each other (Box2D's collideConnected). Default
	// false: jointed bodies do not collide, so a hinge's two parts may overlap at the pivot. A joint to the
	// world (a null body) never turns off collisions with the world's own shapes.
	bool collide_connected;
	uint64_t user_data;
} sn_joint_base;

typedef struct sn_fixed_joint_def
{
	sn_joint_base base;
} sn_fixed_joint_def;

typedef struct sn_hinge_joint_def
{
	sn_joint_base base;
	sn_limit limit;   // angle, rad, in (-pi, pi]
	sn_motor motor;   // rad/s, N*m
	sn_spring spring; // target angle, rad
} sn_hinge_joint_def;

typedef struct sn_prismatic_joint_def
{
	sn_joint_base base;
	sn_limit limit;   // translation, m
	sn_motor motor;   // m/s, N
	sn_spring spring; // target translation, m
} sn_prismatic_joint_def;

typedef struct sn_cylindrical_joint_def
{
	sn_joint_base base;
	sn_limit linear_limit;
	sn_motor linear_motor;
	sn_spring linear_spring;
	sn_limit angular_limit;
	sn_motor angular_motor;
	sn_spring angular_spring;
} sn_cylindrical_joint_def;

// Elliptic swing cone: the swing rotation vector s = (s_y, s_z) stays inside
// (s_y / y_angle)^2 + (s_z / z_angle)^2 <= 1. Half-angles in (0, pi), rad.
typedef struct sn_cone_limit
{
	bool enabled;
	double y_angle;
	double z_angle;
	sn_soft soft;
} sn_cone_limit;

typedef struct sn_spherical_joint_def
{
	sn_joint_base base;
	sn_cone_limit swing;
	sn_limit twist; // twist angle about frame x, rad
} sn_spherical_joint_def;

// Keeps |anchor B - anchor A| at `length`, where the anchors are the frame origins. With the spring
// enabled the length yields around `length`, and the limit (if enabled) bounds it hard or softly.
typedef struct sn_distance_joint_def
{
	sn_joint_base base;
	double length; // rest length, m, > 0
	bool spring_enabled;
	sn_soft spring; // must not be rigid when enabled
	sn_limit limit; // min and max length, m, 0 <= lower <= upper
} sn_distance_joint_def;

typedef enum sn_axis_mode
{
	SN_AXIS_LOCKED = 0,
	SN_AXIS_FREE = 1,
	SN_AXIS_LIMITED = 2,
} sn_axis_mode;

typedef struct sn_joint_axis
{
	sn_axis_mode mode; // default SN_AXIS_LOCKED
	double lower;      // for SN_AXIS_LIMITED, m or rad
	double upper;
	sn_soft limit_soft;
	sn_motor motor;
	sn_spring spring;
} sn_joint_axis;

typedef struct sn_six_axis_joint_def
{
	sn_joint_base base;
	sn_joint_axis axes[SN_AXIS_COUNT]; // indexed by sn_axis
} sn_six_axis_joint_def;

// A joint broke in the last step.
typedef struct sn_joint_break_event
{
	sn_joint_id joint;
	sn_vec3 force;  // N, on body B, world frame, at the step it broke
	sn_vec3 torque; // N*m, on body B about its anchor, world frame
	double time;    // s, world time at the end of the step
	uint64_t user_data;
} sn_joint_break_event;

typedef struct sn_memory_stats
{
	size_t bytes_in_use;  // through the world's allocator
	uint64_t allocations; // calls to alloc since creation
	uint64_t frees;       // calls to free since creation
} sn_memory_stats;

#ifdef __cplusplus
}
#endif

#endif
