// Sinew model import: URDF text into a plain model, and a model into a world as one articulation with
// mimic joints. Library sinew_model (target sinew::model); it uses the core and expat, and the core never
// includes it. Prefix snm_.
//
// Two layers:
//   1. snm_parse_urdf reads and validates URDF text into an snm_model: links (inertial frame, mass, full
//      inertia, visuals), joints (type, parent, child, origin, axis, limit, dynamics, mimic) and materials.
//      Nothing of the core is created. Every error names the file, the line and column, the element and
//      what is wrong.
//   2. snm_build creates the model in a world as one articulation plus its mimic joints, with drive gains
//      from the caller (URDF has none), and returns maps from the model's links and joints to articulation
//      link indices, dof indices and mimic ids.
//
// What is read (URDF as urdfdom reads it):
//   <robot name>                         root element; other top-level elements (gazebo, transmission,
//                                        ros2_control, ...) are skipped
//   <link name>                          <inertial> (origin xyz rpy, mass value, inertia ixx ixy ixz iyy iyz
//                                        izz), <visual name> (origin; geometry box size | cylinder radius
//                                        length | sphere radius | mesh filename scale; material name with
//                                        color rgba and texture filename). <collision> is skipped (the core
//                                        has no contacts yet).
//   <joint name type>                    revolute, continuous, prismatic, fixed, floating, planar; origin,
//                                        parent link, child link, axis xyz (default 1 0 0, normalised), limit
//                                        lower upper effort velocity, dynamics damping friction, mimic joint
//                                        multiplier (default 1) offset (default 0); a <mimic> on a fixed joint
//                                        means nothing and is ignored with a warning. calibration and
//                                        safety_controller are skipped.
//   <material name>                      top-level colours that visuals may name
// Unknown elements are skipped with their contents, as urdfdom does. An element whose name starts with
// "xacro:" is an error (the file needs xacro first). A DOCTYPE is an error: URDF never needs one, and
// refusing it refuses every entity expansion. Numbers are parsed in the C locale; NaN and infinities are
// errors. An inertia tensor must be positive semidefinite (no negative principal moment); whether a link
// needs more (a positive definite tensor, the triangle inequality) is decided when it is built, because a
// link merged into another by a fixed joint or welded to the world needs no inertia of its own.
//
// Warnings: what the importer ignored, merged, substituted or repaired is not an error; the model and
// the build result each carry a list of warnings (snm_warning) for the user.
//
// Limits (snm_limits, each overridable): the input size, the number of links, joints, visuals and
// materials, and the element nesting depth. Names are at most SNM_NAME_MAX - 1 bytes and file names
// SNM_PATH_MAX - 1; longer ones are errors, never truncated.
#ifndef SINEW_MODEL_H
#define SINEW_MODEL_H

#include "sinew/articulation.h"
#include "sinew/base.h"
#include "sinew/math.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

// Bytes for a name, NUL included: link, joint, material and visual names, robot name.
#define SNM_NAME_MAX 128
// Bytes for a file name (mesh, texture, the URDF's own), NUL included.
#define SNM_PATH_MAX 512

typedef struct snm_limits
{
	size_t max_bytes;  // URDF text size, bytes. Default 8 MiB (real robots are well under 1 MiB).
	int max_links;     // Default 1024.
	int max_joints;    // Default 1024.
	int max_visuals;   // all links together. Default 4096.
	int max_materials; // top-level materials. Default 1024.
	int max_depth;     // element nesting. Default 64 (URDF needs 5).
} snm_limits;

snm_limits snm_default_limits(void);

// Where and what went wrong. code is SN_ERR_OK when nothing did.
typedef struct snm_error
{
	sn_error code;     // the typed error (INVALID_ARGUMENT, TOPOLOGY, INERTIA_NOT_PD, ...)
	int line;          // 1-based line of the element's start tag; 0 when not tied to a place
	int column;        // 1-based column of that tag; 0 when unknown
	char element[96];  // the element, e.g. <joint name="elbow">; "" when not tied to one
	char message[256]; // what is wrong, one line
	char text[768];    // all of it: "file:line:column: <element>: message"
} snm_error;

// Something the importer did that the user should know about: ignored, merged, substituted, repaired.
typedef struct snm_warning
{
	int line;          // 1-based line of the element, 0 when not tied to one
	char element[96];  // e.g. <joint name="elbow">, "" when not tied to one
	char message[256]; // what was done, one line
	char text[640];    // "file:line: <element>: message"
} snm_warning;

// Warnings kept per model and per build (more are counted, not kept).
#define SNM_MAX_WARNINGS 64

typedef enum snm_joint_type
{
	SNM_JOINT_FIXED = 0,
	SNM_JOINT_REVOLUTE = 1,   // one rotation about the axis, with limits
	SNM_JOINT_CONTINUOUS = 2, // one rotation about the axis, no position limits
	SNM_JOINT_PRISMATIC = 3,  // one translation along the axis, with limits
	SNM_JOINT_FLOATING = 4,   // six dofs: only as the base of an articulation
	SNM_JOINT_PLANAR = 5,     // read, but snm_build rejects it (see there)
} snm_joint_type;

// Name as URDF writes it ("revolute", ...), or "unknown".
const char* snm_joint_type_name(snm_joint_type type);

typedef enum snm_geometry_type
{
	SNM_GEOMETRY_NONE = 0, // a <visual> without a geometry the importer knows
	SNM_GEOMETRY_BOX = 1,
	SNM_GEOMETRY_CYLINDER = 2, // axis along the visual frame's z, as in URDF
	SNM_GEOMETRY_SPHERE = 3,
	SNM_GEOMETRY_MESH = 4,
} snm_geometry_type;

typedef struct snm_visual
{
	int link; // index of the owning link
	char name[SNM_NAME_MAX];
	sn_transform origin; // visual frame in the link frame
	snm_geometry_type type;
	sn_vec3 size;                // box: full edge lengths, m
	double radius;               // cylinder, sphere: m
	double length;               // cylinder: m
	sn_vec3 scale;               // mesh: per-axis scale, default (1, 1, 1)
	char mesh[SNM_PATH_MAX];     // mesh: file name as written (package://... or a path)
	char material[SNM_NAME_MAX]; // material name ("" if none)
	bool has_color;              // rgba from the visual's own <material><color>, else the named top-level one
	double rgba[4];              // red, green, blue, alpha in [0, 1]; (0.7, 0.7, 0.7, 1) without a colour
	char texture[SNM_PATH_MAX];
	int line;
} snm_visual;

typedef struct snm_link
{
	char name[SNM_NAME_MAX];
	int line;
	// From <inertial>. Without one the link has no mass (mass 0, inertia 0): see snm_build for what
	// happens to massless links.
	bool has_inertial;
	double mass;                 // kg, >= 0
	sn_transform inertial_frame; // <inertial><origin>: centre of mass and inertia axes in the link frame
	sn_mat33 inertia;            // about the centre of mass in inertial_frame's axes, kg*m^2 (as written)
	int inertial_line;           // line of <inertial>, 0 if none
	int inertia_line;            // line of <inertia>, 0 if none
	int first_visual;            // visuals of this link: [first_visual, first_visual + visual_count)
	int visual_count;
	int parent_joint; // the joint whose child this link is; -1 for the root
} snm_link;

typedef struct snm_joint
{
	char name[SNM_NAME_MAX];
	int line;
	snm_joint_type type;
	char parent_name[SNM_NAME_MAX];
	char child_name[SNM_NAME_MAX];
	int parent;          // link index
	int child;           // link index
	sn_transform origin; // joint frame in the parent link's frame = child link frame at q = 0
	sn_vec3 axis;        // unit axis in the joint frame; (1, 0, 0) when not given
	bool has_limit;
	double lower; // rad or m; 0 when not given
	double upper;
	double effort;   // N*m or N, >= 0; 0 when not given
	double velocity; // rad/s or m/s, >= 0; 0 when not given
	double damping;  // N*m*s/rad or N*s/m, >= 0
	double friction; // N*m or N, >= 0
	bool has_mimic;
	char mimic_name[SNM_NAME_MAX];
	int mimic;         // index of the joint this one follows; -1 if none
	double multiplier; // URDF: q_this = multiplier * q_mimic + offset
	double offset;     // rad or m
	int mimic_line;    // lines of the <mimic>, <limit>, <parent> and <child> elements, 0 if absent
	int limit_line;
	int parent_line;
	int child_line;
} snm_joint;

typedef struct snm_material
{
	char name[SNM_NAME_MAX];
	bool has_color;
	double rgba[4];
	char texture[SNM_PATH_MAX];
	int line;
} snm_material;

typedef struct snm_model
{
	char name[SNM_NAME_MAX]; // <robot name>
	char file[SNM_PATH_MAX]; // the file name given to the parser (for messages)
	snm_link* links;         // in document order
	int link_count;
	snm_joint* joints; // in document order
	int joint_count;
	snm_visual* visuals; // grouped by link, in document order
	int visual_count;
	snm_material* materials; // top-level materials
	int material_count;
	int root;              // index of the root link
	int* link_order;       // link_count link indices, parents before children (depth first from the
						   // root, children in joint document order)
	snm_warning* warnings; // what the parse ignored (warning_count of them, at most SNM_MAX_WARNINGS kept)
	int warning_count;     // warnings kept
	int warnings_dropped;  // warnings beyond SNM_MAX_WARNINGS, counted only
} snm_model;

// Parse and validate URDF text (size bytes, need not be NUL-terminated). file_name is only used in
// messages (NULL: "<urdf>"); limits NULL means snm_default_limits(). On success *out_model owns a new
// model (free it with snm_model_destroy). On failure *out_model is NULL, *error says why, and nothing
// is left allocated. Never crashes, hangs or leaks on any input.
sn_error snm_parse_urdf(const char* text, size_t size, const char* file_name, const snm_limits* limits,
						snm_model** out_model, snm_error* error);
// Read a file (no larger than limits->max_bytes) and parse it.
sn_error snm_load_urdf_file(const char* path, const snm_limits* limits, snm_model** out_model, snm_error* error);
void snm_model_destroy(snm_model* model);

// Index of a link or joint by name, or -1.
int snm_model_find_link(const snm_model* model, const char* name);
int snm_model_find_joint(const snm_model* model, const char* name);
// Number of position coordinates of a joint: 1 (revolute, continuous, prismatic), 0 (fixed), 6 (floating:
// base position and rotation vector), 3 (planar).
int snm_joint_dof_count(snm_joint_type type);

// The one place where URDF's mimic meets the core's. URDF: q_this = multiplier * q_ref + offset. The core
// (PhysX's mimic-joint notes, eq. 3): q_A + G q_B + gamma = 0. With A = this joint and B = the referenced
// joint:
//   q_A - multiplier * q_B - offset = 0,  so  G = -multiplier, gamma = -offset.
void snm_urdf_mimic_to_core(double multiplier, double offset, double* gearing, double* gamma);

// The rotation that turns the core's joint axis (the joint frame's x) onto a URDF axis (joint frame; it is
// normalised here): the shortest arc from x when x.axis >= 0, else half a turn about z followed by the
// shortest arc from -x (so -x itself gives half a turn about z). snm_build folds it into both joint frames:
// the core's joint frame is the URDF joint frame turned by this rotation, and q means the same angle or
// distance as in URDF.
sn_quat snm_axis_rotation(sn_vec3 axis);
// URDF rpy (fixed axes: roll about x, then pitch about y, then yaw about z) as a quaternion.
sn_quat snm_quat_from_rpy(double roll, double pitch, double yaw);

// ---- Building into a world ----

typedef enum snm_base_mode
{
	// Floating when the root link's joint to its child is <joint type="floating">, fixed otherwise.
	SNM_BASE_AUTO = 0,
	// The base is welded to the world at its initial pose (a root floating joint is welded too).
	SNM_BASE_FIXED = 1,
	// The base floats: the child of a root floating joint, else the root link.
	SNM_BASE_FLOATING = 2,
} snm_base_mode;

// What a URDF's <limit velocity> becomes. In URDF it is the actuator's speed, not a property of the joint:
// a joint moved by gravity or a collision may move faster than its motor can drive it.
typedef enum snm_velocity_limits
{
	// The drives' speed (sn_drive.max_velocity): a drive never pushes its joint faster; the joint itself
	// moves freely. A mimic follower's drive (if it has one) gets |multiplier| times its leader's limit,
	// so that it can follow. The default.
	SNM_VELOCITY_LIMITS_DRIVE = 0,
	// A hard cap on the joint's speed (sn_link_def.max_joint_velocity, what PhysX calls max joint
	// velocity), whatever moves it. A mimic follower is capped at |multiplier| times its leader's cap, so
	// that the relation can hold at the leader's full speed.
	SNM_VELOCITY_LIMITS_JOINT = 1,
	// Ignored.
	SNM_VELOCITY_LIMITS_NONE = 2,
} snm_velocity_limits;

// Name of a mode ("drive", "joint", "none"), or "unknown".
const char* snm_velocity_limits_name(snm_velocity_limits mode);

// Drive gains for one joint (by name) or for all joints.
typedef struct snm_drive_gains
{
	const char* joint; // URDF joint name (a per-joint entry); ignored for drive_all
	sn_drive drive;    // enabled, type, stiffness, damping, targets, max_force
	// true: max_force is the joint's URDF effort limit (INFINITY when the joint has no <limit> or its
	// effort is 0, which URDF files use for "not given"); drive.max_force is then ignored. Default true.
	bool max_force_from_effort;
} snm_drive_gains;

// A joint position by name (rad or m).
typedef struct snm_joint_value
{
	const char* joint;
	double value;
} snm_joint_value;

typedef struct snm_build_def
{
	// Base pose (where the root or floating child is put: the model's root link frame in the world),
	// base velocities, gravity scale, user data. fixed_base is set from base_mode.
	sn_articulation_def articulation;
	snm_base_mode base_mode; // Default SNM_BASE_AUTO.
	// Gains for every joint with dofs except mimic followers (a follower's drive would fight its mimic
	// row); disabled by default. drive_all.drive's target position is ignored: each joint's target is its
	// initial position, so drive_all holds the initial pose.
	snm_drive_gains drive_all;
	// Per-joint gains; they replace drive_all for their joint (followers included). Names must exist.
	const snm_drive_gains* drives;
	int drive_count;
	// Initial joint positions by name (rad or m). A mimic follower not listed starts at
	// multiplier * q_ref + offset, so every mimic row starts satisfied. A follower that is listed moves
	// its leader instead: the leader starts at (q - offset) / multiplier (an error if the leader is listed
	// too with another value, or if the multiplier is 0).
	const snm_joint_value* initial;
	int initial_count;
	double mimic_erp;       // Baumgarte factor of the mimic rows, [0, 1]. Default that of the core.
	sn_soft mimic_soft;     // Default rigid.
	double mimic_max_force; // N*m or N, >= 0. Default INFINITY.
	bool use_limits;        // <limit lower upper> as joint limits. Default true.
	// <limit velocity> (when > 0): the drives' speed (default), a cap on the joint's speed, or ignored.
	snm_velocity_limits velocity_limits;
	bool use_dynamics; // <dynamics damping friction>. Default true.
	// Mass (kg) given to a link that has none but moves on its own joint, with the inertia of a solid
	// sphere of 0.01 m radius. Default 0: such a link is an error.
	double massless_link_mass;
	// A link that moves must have principal moments of inertia that satisfy the triangle inequality (each
	// at most the sum of the other two; otherwise no distribution of mass has them). false (default):
	// such a link is an error naming the <inertia> and its moments. true: the two smaller moments are
	// each raised by half the deficit, so that they add up to the largest (principal axes and largest
	// moment kept), with a warning. A moving link whose inertia is singular is an error either way.
	bool balance_inertia;
	// Links joined to their parent by a fixed joint become part of the parent's articulation link (their
	// mass, centre and inertia added in), as MuJoCo's fusestatic does: fewer links to step. false keeps
	// a link with mass as its own articulation link on a fixed joint (its inertia must then be positive
	// definite); massless links are merged either way. Default true.
	bool merge_fixed_links;
} snm_build_def;

snm_build_def snm_default_build_def(void);

// What snm_build created, and where each model link and joint went.
//
// Links attached by a fixed joint are merged into their parent (merge_fixed_links; massless ones always:
// exact, they add nothing), and a massless parent takes over its massive fixed child (the child's mass is
// expressed in the parent's frame). So several model links may share one articulation link; link_offset
// says where each model link's frame sits in it. A fixed-base root whose mass or inertia cannot move
// anything (none, or not positive definite) gets 1 kg and the inertia of a 0.1 m sphere: it is welded to
// the world, so they do nothing.
typedef struct snm_build_result
{
	sn_articulation_id articulation;
	int link_count;            // model links
	int* link_index;           // per model link: the articulation link it belongs to, -1 for a
							   // massless root above a floating joint (the world)
	sn_transform* link_offset; // per model link: its frame in that articulation link's frame
	int joint_count;           // model joints
	int* joint_link;           // per model joint: the articulation link it is the inbound joint of; -1
							   // when merged away (fixed) or the root floating joint
	int* joint_dof;            // per model joint: first dof, -1 when it has none
	int* joint_dof_count;      // per model joint: 0 or 1
	sn_mimic_id* joint_mimic;  // per model joint: its mimic row, null if it has none
	int articulation_link_count;
	int* articulation_link_model; // per articulation link: the model link whose frame it is
	int floating_joint;           // model joint that is the floating base, -1 if none
	snm_warning* warnings;        // what the build merged, substituted or repaired (warning_count kept)
	int warning_count;
	int warnings_dropped; // beyond SNM_MAX_WARNINGS, counted only
} snm_build_result;

// Check and plan a build without touching the world: the same checks as snm_build (types, massless
// links, drives and initial names). Fills *error on failure.
sn_error snm_build_check(const snm_model* model, const snm_build_def* def, snm_error* error);

// Create the model in the world. On success *result owns arrays (free with snm_build_result_free). On
// failure nothing is left in the world, *error says why (for core rejections it carries the world's
// detail line) and *result is zeroed.
sn_error snm_build(sn_world* world, const snm_model* model, const snm_build_def* def, snm_build_result* result,
				   snm_error* error);
void snm_build_result_free(snm_build_result* result);

#ifdef __cplusplus
}
#endif

#endif
