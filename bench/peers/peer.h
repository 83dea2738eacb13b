// The peer engines' side of the contact benchmark: the scenes of shared/bench/contact-scenes.md (C1..C8)
// and issue 13's gripper as plain data that every peer engine (MuJoCo, Bullet, ODE) builds in its own
// terms, and the one interface through which the runner (bench_peers.c) steps and observes them. Every
// measurement is taken by the runner from what this interface returns, so the figures of the three
// engines are computed by the same code.
//
// Conventions: SI units, world frame z up, quaternions (w, x, y, z), double precision everywhere (MuJoCo
// and ODE are built in double by Debian; Bullet is linked in its float64 flavour).
#ifndef SINEW_BENCH_PEER_H
#define SINEW_BENCH_PEER_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PEER_GRAVITY 9.81

typedef enum peer_geom
{
	PEER_BOX,     // half-extents half[0..2]
	PEER_SPHERE,  // radius half[0]
	PEER_CAPSULE, // radius half[0], half core length half[1], the core along the body's x axis
} peer_geom;

// How a body hangs from its parent (bodies in an articulation, or jointed bodies).
typedef enum peer_joint
{
	PEER_JOINT_NONE, // a free body (or an articulation's floating base)
	PEER_JOINT_HINGE,
	PEER_JOINT_SLIDER,
} peer_joint;

// A force-limited position drive on a body's joint (the gripper): a spring-damper toward a target, its
// force clamped to +-max_force. Each engine expresses it as its own drive (see the engine files).
typedef struct peer_drive
{
	bool enabled;
	double stiffness; // N/m
	double damping;   // N s/m
	double max_force; // N
	double target;    // initial target, m
} peer_drive;

enum
{
	PEER_WORLD = -2, // parent index: jointed to the world (a fixed-base articulation)
	PEER_NO_PARENT = -1,
};

typedef struct peer_body
{
	peer_geom geom;
	double half[3];
	double mass;       // kg
	double inertia[3]; // principal moments about the centre of mass, body axes, kg m^2
	double p[3];       // centre of mass, world
	double q[4];       // orientation (w, x, y, z)
	double friction, restitution;
	// Articulation: the index of the articulation the body belongs to (-1: none). Within one, bodies are
	// listed parents first; parent is a body index, PEER_WORLD or PEER_NO_PARENT (the floating base).
	int articulation;
	int parent;
	peer_joint joint;
	double anchor[3]; // the joint's point, world, at the start
	double axis[3];   // the joint's axis, world, at the start (unit); sliders: positive = child moves along +axis
	peer_drive drive;
	int mimic_of; // -1, or the body whose joint this body's joint copies (q_this = q_leader)
} peer_body;

typedef struct peer_plane
{
	double n[3]; // unit normal; the plane passes through the origin
	double friction, restitution;
} peer_plane;

typedef struct peer_static_box
{
	double p[3], half[3];
	double friction, restitution;
} peer_static_box;

typedef enum peer_scene_id
{
	PEER_C1,
	PEER_C2A,
	PEER_C2B,
	PEER_C3,
	PEER_C4,
	PEER_C5,
	PEER_C6,
	PEER_C7,
	PEER_C8,
	PEER_GRIPPER,
	PEER_SCENE_COUNT
} peer_scene_id;

enum
{
	PEER_MAX_PLANES = 1,
	PEER_MAX_WALLS = 4,
};

typedef struct peer_scene
{
	peer_scene_id id;
	const char* name; // "C5"
	double dt;        // s
	double duration;  // s
	peer_plane planes[PEER_MAX_PLANES];
	int plane_count;
	peer_static_box walls[PEER_MAX_WALLS];
	int wall_count;
	peer_body* bodies;
	int body_count;
	int articulation_count;
	// true: articulations in reduced coordinates (MuJoCo's bodies, Bullet's btMultiBody); false: the same
	// bodies as maximal rigid bodies joined by hinge (or slider) constraints.
	bool reduced;
	bool needs_restitution; // the scene's figure depends on restitution (C3)
	bool needs_mimic;       // the scene has mimic-coupled joints (the gripper)
	bool wants_forces;      // the runner reads contact forces (C1): engines may keep force feedback on
	// An upper estimate of the contact points the scene has at once (0: small), for engines whose memory
	// is sized before the first step (MuJoCo's contact list and constraint rows).
	int contacts_bound;
} peer_scene;

// Build scene `id` at time step dt (s) in `reduced` or maximal coordinates (only C8 and the gripper
// differ). bodies is allocated; free with peer_scene_free. Returns false on a bad id or no memory.
bool peer_scene_build(peer_scene_id id, double dt, bool reduced, peer_scene* out);
void peer_scene_free(peer_scene* scene);
// The scene's name ("C1", "C2a", ..., "gripper").
const char* peer_scene_name(peer_scene_id id);

// The gripper's script (issue 13): fingers close from t = 0, the lift rises 0.2 m over [LIFT_START,
// LIFT_END] and holds until the end (HOLD s after LIFT_END).
#define PEER_GRIPPER_LIFT_START 0.5
#define PEER_GRIPPER_LIFT_END 1.5
#define PEER_GRIPPER_HOLD 5.0
#define PEER_GRIPPER_LIFT 0.2
#define PEER_GRIPPER_BOX_MASS 0.5
enum
{
	PEER_GRIPPER_PALM = 0,
	PEER_GRIPPER_FINGER_L = 1, // the driven finger (at -x, closes along +x)
	PEER_GRIPPER_FINGER_R = 2, // the mimic finger (at +x, closes along -x)
	PEER_GRIPPER_BOX = 3,
};
// The lift's target at time t.
double peer_gripper_lift_target(double t);

// ---- engines --------------------------------------------------------------------------------------------

typedef struct peer_state
{
	double p[3], q[4]; // centre of mass and orientation, world
	double v[3], w[3]; // linear velocity of the centre of mass and angular velocity, world
} peer_state;

typedef struct peer_contacts
{
	int count;          // contact points the solver used in the last step
	double penetration; // the deepest of them at collision-detection time, m (0 if none penetrates)
} peer_contacts;

typedef struct peer_engine
{
	const char* name;             // "mujoco", "bullet", "ode"
	const char* (*version)(void); // of the library linked
	// Print the settings this engine runs with, as '# ' lines, and why.
	void (*describe)(void);
	// Build a world for the scene, or return NULL and say why in `why` (a short token such as
	// "no_restitution" when the engine cannot express the scene).
	void* (*create)(const peer_scene* scene, char* why, size_t why_size);
	void (*step)(void* world);
	void (*state)(void* world, int body, peer_state* out);
	void (*contacts)(void* world, peer_contacts* out);
	// The total contact force on a body from the last step (N, world).
	void (*contact_force)(void* world, int body, double f[3]);
	// Set the drive target of a body's joint; the force its drive applied in the last step (N).
	void (*set_target)(void* world, int body, double target);
	double (*drive_force)(void* world, int body);
	// Anything the engine reported while stepping (MuJoCo's warnings), as a token for the BENCH line, or "".
	const char* (*warnings)(void* world);
	void (*destroy)(void* world);
} peer_engine;

extern const peer_engine peer_mujoco;
extern const peer_engine peer_bullet;
extern const peer_engine peer_ode;

// Helpers shared by the engines.
void peer_quat_rotate(const double q[4], const double v[3], double out[3]);
// The rotation taking unit vector a onto unit vector b (shortest arc).
void peer_quat_between(const double a[3], const double b[3], double out[4]);

#ifdef __cplusplus
}
#endif

#endif
