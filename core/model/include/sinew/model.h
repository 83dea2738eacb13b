// Sinew model import: URDF text into a plain model, its mesh files into triangles, and a model into a
// world as one articulation with mimic joints and collision shapes. Library sinew_model (target
// sinew::model); it uses the core, expat and assimp, and the core never includes it. Prefix snm_.
//
// Three layers:
//   1. snm_parse_urdf reads and validates URDF text into an snm_model: links (inertial frame, mass, full
//      inertia, visuals, collisions), joints (type, parent, child, origin, axis, limit, dynamics, mimic)
//      and materials. Nothing of the core is created and no file is read. Every error names the file,
//      the line and column, the element and what is wrong.
//   2. snm_model_load_meshes reads the mesh files the visuals and collisions name, through resolvers
//      (files supplied in memory, package:// on a model path, paths relative to the URDF), into triangles
//      kept by the model (snm_import_urdf_file: a URDF file and its meshes in one call).
//   3. snm_build creates the model in a world as one articulation plus its mimic joints and the shapes of
//      its collisions, with drive gains from the caller (URDF has none), and returns maps from the
//      model's links and joints to articulation link indices, dof indices, mimic ids and shapes.
//
// What is read (URDF as urdfdom reads it):
//   <robot name>                         root element; other top-level elements (gazebo, transmission,
//                                        ros2_control, ...) are skipped
//   <link name>                          <inertial> (origin xyz rpy, mass value, inertia ixx ixy ixz iyy iyz
//                                        izz), <visual name> (origin; geometry box size | cylinder radius
//                                        length | sphere radius | mesh filename scale; material name with
//                                        color rgba and texture filename), <collision name> (origin;
//                                        geometry as a visual's): shapes on the link when built.
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
#include "sinew/shape.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// Bytes for a name, NUL included: link, joint, material and visual names, robot name.
#define SNM_NAME_MAX 128
// Bytes for a file name (mesh, texture, the URDF's own), NUL included.
#define SNM_PATH_MAX 512

typedef struct snm_limits
{
	size_t max_bytes;   // URDF text size, bytes. Default 8 MiB (real robots are well under 1 MiB).
	int max_links;      // Default 1024.
	int max_joints;     // Default 1024.
	int max_visuals;    // all links together. Default 4096.
	int max_collisions; // all links together. Default 4096.
	int max_materials;  // top-level materials. Default 1024.
	int max_depth;      // element nesting. Default 64 (URDF needs 5).
} snm_limits;

snm_limits snm_default_limits(void);

// What went wrong with a mesh file (an asset), beside the core's error code; SNM_ASSET_NONE for errors that
// are not about one.
typedef enum snm_asset_error
{
	SNM_ASSET_NONE = 0,
	SNM_ASSET_NOT_FOUND = 1, // no resolver had the file (code INVALID_ARGUMENT; the message says where it looked)
	SNM_ASSET_REFUSED = 2,   // a URI the options do not allow (absolute, file://, "..": confine_paths)
	SNM_ASSET_TOO_LARGE = 3, // more bytes than max_file_bytes (code CAPACITY)
	SNM_ASSET_TOO_MANY_TRIANGLES = 4, // more than max_triangles in one file (CAPACITY)
	SNM_ASSET_TOO_MANY_MESHES = 5,    // more distinct files than max_meshes in one model (CAPACITY)
	SNM_ASSET_MODEL_TOO_LARGE = 6,    // all files together more than max_model_bytes (CAPACITY)
	SNM_ASSET_TOO_DEEP = 7,           // a DAE nested deeper than max_xml_depth (CAPACITY)
	SNM_ASSET_UNREADABLE = 8,         // the reader failed: truncated, malformed, bad indices (INVALID_ARGUMENT)
	SNM_ASSET_EMPTY = 9,              // no triangles, or a hull of them that is flat (INVALID_ARGUMENT)
	SNM_ASSET_UNSUPPORTED = 10,       // a format or URI scheme the importer does not read (UNSUPPORTED)
} snm_asset_error;

// Name of an asset error in lower case ("not_found", ...), or "unknown".
const char* snm_asset_error_name(snm_asset_error error);

// Where and what went wrong. code is SN_ERR_OK when nothing did.
typedef struct snm_error
{
	sn_error code;         // the typed error (INVALID_ARGUMENT, TOPOLOGY, INERTIA_NOT_PD, ...)
	snm_asset_error asset; // for mesh files: what kind of failure; SNM_ASSET_NONE otherwise
	int line;              // 1-based line of the element's start tag; 0 when not tied to a place
	int column;            // 1-based column of that tag; 0 when unknown
	char element[96];      // the element, e.g. <joint name="elbow">; "" when not tied to one
	char message[256];     // what is wrong, one line
	char text[768];        // all of it: "file:line:column: <element>: message"
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
	int mesh_index; // mesh: into model->meshes once snm_model_load_meshes read it; -1 before, or when missing
} snm_visual;

// A <collision> element: geometry in the link frame, as URDF writes it.
typedef struct snm_collision
{
	int link; // index of the owning link
	char name[SNM_NAME_MAX];
	sn_transform origin; // collision frame in the link frame
	snm_geometry_type type;
	sn_vec3 size;            // box: full edge lengths, m
	double radius;           // cylinder, sphere: m
	double length;           // cylinder: m (axis along the collision frame's z)
	sn_vec3 scale;           // mesh: per-axis scale, default (1, 1, 1)
	char mesh[SNM_PATH_MAX]; // mesh: file name as written
	int mesh_index;          // as snm_visual.mesh_index
	int line;
} snm_collision;

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
	int first_collision; // collisions of this link: [first_collision, first_collision + collision_count)
	int collision_count;
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
	snm_collision* collisions; // grouped by link, in document order
	int collision_count;
	struct snm_mesh** meshes; // distinct mesh files read by snm_model_load_meshes (mesh_count of them)
	int mesh_count;
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

// ---- Mesh files: <mesh filename> read into triangles ----
//
// snm_model_load_meshes reads every mesh file that the model's visuals and collisions name (each distinct
// URI once) and keeps its triangles in the model (model->meshes; each visual's and collision's mesh_index
// points there). Parsing URDF text never reads a file; this is the one step that does, and only through
// resolvers (below), so that a server can serve files a client uploaded.
//
// Formats: STL (binary and ASCII), OBJ and DAE (Collada), by the file name's extension, read by Debian's
// assimp (its C API, from memory: assimp never opens a file itself, so an OBJ's mtllib or a DAE's
// external references are not followed). Every polygon is triangulated, points and lines are dropped,
// node transforms are applied (the file's meshes merge into one mesh in the file's frame). Units: a DAE's
// <unit meter> is applied (as assimp applies it); a DAE's <up_axis> too: assimp turns a Collada scene to Y up,
// and the importer turns assimp's Y up into URDF's Z up (+90 degrees about x), so a Z_UP file (what ROS
// descriptions use) keeps its coordinates and a Y_UP file stands up. STL and OBJ have no units: metres, as
// written. <mesh scale> is not applied here (it belongs to each use): see the build and
// snm_visual_mesh.scale.
//
// Where files are found, for a URI as written in <mesh filename>:
//   1. options.resolve (if set): a callback (for instance snm_resolve_memory over files a client sent),
//      asked with the URI as written;
//   2. the filesystem (options.read_files, default on):
//        package://NAME/REST  for each folder E of options.package_path, then of SINEW_MODEL_PATH (both
//                             colon-separated, like ROS_PACKAGE_PATH): E/NAME/REST when E/NAME is a
//                             folder, or E/REST when E/package.xml has <name>NAME</name>
//        file:///abs/path     /abs/path (file://rel/path: rel/path as below)
//        /abs/path            as is
//        rel/path             options.base_dir/rel/path (the URDF's folder; snm_import_urdf_file sets it)
//      with options.confine_paths, absolute paths, file:// and any ".." segment are refused (a server
//      reading a client's URDF must not read its own disk by the client's choice).
// A file no resolver has is an error (SNM_ASSET_NOT_FOUND) whose message names the URI and every place
// looked, unless options.missing_fallback: then a warning, and the visual or collision keeps mesh_index
// -1 (no visual, no shape).
//
// Limits (snm_mesh_limits, each overridable; the defaults are the SNM_MESH_* constants below with their
// reasons). Nothing is read past max_file_bytes; triangle counts are checked after reading but are bounded
// by the bytes before it (a binary STL's header count is checked against its size by assimp); a DAE's
// XML is first scanned by expat with a depth limit and no DOCTYPE (no entity is ever expanded, and
// assimp's recursive readers never see deep nesting).

// Bytes of one mesh file: 16 MiB. The largest published robot mesh we know is about 2 MB (a UR5 DAE);
// assimp holds about ten to twenty times a file's bytes while it reads, so this bounds a read to a few
// hundred MB at worst.
#define SNM_MESH_MAX_FILE_BYTES ((size_t)16 << 20)
// Triangles of one mesh file: 2^19 (a detailed visual link has 10^4 to 10^5; 2^19 triangles are about
// 40 MB of positions, normals and indices kept per file).
#define SNM_MESH_MAX_TRIANGLES (1 << 19)
// Distinct mesh files per model: 1024 (a humanoid names about 100).
#define SNM_MESH_MAX_MESHES 1024
// Bytes of all mesh files of one model together: 256 MiB (what one model may make a server read).
#define SNM_MESH_MAX_MODEL_BYTES ((size_t)256 << 20)
// Element nesting of a DAE: 128 (Collada needs about 10 plus its node hierarchy; assimp reads nodes
// recursively, so deeper nesting would be a stack to exhaust).
#define SNM_MESH_MAX_XML_DEPTH 128
// Vertices of a collision hull: the core's bound (SN_SHAPE_MAX_HULL_VERTICES, 256); with more extreme
// points the core keeps the most extreme (its quickhull adds the farthest point first).
#define SNM_MESH_MAX_HULL_VERTICES 256

typedef struct snm_mesh_limits
{
	size_t max_file_bytes;  // Default SNM_MESH_MAX_FILE_BYTES.
	int max_triangles;      // Default SNM_MESH_MAX_TRIANGLES.
	int max_meshes;         // Default SNM_MESH_MAX_MESHES.
	size_t max_model_bytes; // Default SNM_MESH_MAX_MODEL_BYTES.
	int max_xml_depth;      // Default SNM_MESH_MAX_XML_DEPTH.
} snm_mesh_limits;

snm_mesh_limits snm_default_mesh_limits(void);

// One part of a mesh file (an assimp mesh): a run of triangles with the file's own material colour.
typedef struct snm_mesh_part
{
	int first_triangle;
	int triangle_count;
	bool has_color; // the file gave a diffuse colour
	float rgba[4];  // that colour, else (0.7, 0.7, 0.7, 1)
} snm_mesh_part;

// A mesh file read into triangles (shared by every visual and collision that names the same URI).
typedef struct snm_mesh
{
	char uri[SNM_PATH_MAX];    // as written in the URDF (the first element that named it)
	char source[SNM_PATH_MAX]; // where it was found: the file's path, or what the resolver said
	uint64_t hash;             // FNV-1a 64 of the file's bytes (snm_fnv1a64): the same file, the same hash
	size_t file_bytes;
	int vertex_count;
	float* positions; // [3 * vertex_count], m, in the file's frame (units and up axis applied, no <scale>)
	float* normals;   // [3 * vertex_count], unit (assimp's smooth normals where the file has none)
	int triangle_count;
	uint32_t* indices; // [3 * triangle_count], counter-clockwise from the front
	int part_count;
	snm_mesh_part* parts;
} snm_mesh;

// What a resolver hands over. release (if not NULL) is called with release_context and data once the
// importer is done with the bytes; without it the bytes stay the resolver's and must live until
// snm_model_load_meshes returns.
typedef struct snm_asset
{
	const unsigned char* data;
	size_t size;
	void (*release)(void* release_context, const unsigned char* data);
	void* release_context;
	char source[SNM_PATH_MAX]; // where it came from, for messages and snm_mesh.source ("" : the URI)
} snm_asset;

// A resolver: find the file that `uri` (as written in the URDF) names. Return SN_ERR_OK with *asset
// filled; SN_ERR_INVALID_ARGUMENT when it has no such file (appending where it looked, "; "-separated, to
// looked: looked_capacity bytes, always NUL-terminated); SN_ERR_CAPACITY when the file has more than
// max_bytes (give nothing back); any other code stops the import with that code.
typedef sn_error (*snm_resolve_fn)(void* user, const char* uri, size_t max_bytes, snm_asset* asset, char* looked,
								   size_t looked_capacity);

// Files supplied in memory (a client's upload): name is the URI exactly as the URDF writes it
// ("package://my_robot/meshes/arm.stl", "meshes/arm.stl"). The table and its bytes are the caller's.
typedef struct snm_memory_file
{
	const char* name;
	const void* data;
	size_t size;
} snm_memory_file;

typedef struct snm_memory_files
{
	const snm_memory_file* files;
	int count;
} snm_memory_files;

// A resolver over a snm_memory_files table (user points at it): exact name match, no copy.
sn_error snm_resolve_memory(void* user, const char* uri, size_t max_bytes, snm_asset* asset, char* looked,
							size_t looked_capacity);

typedef struct snm_mesh_options
{
	const char* base_dir;     // relative file names: this folder (the URDF's). NULL: the current directory
	const char* package_path; // colon-separated folders for package://, searched before SINEW_MODEL_PATH
	bool use_env_path;        // also search SINEW_MODEL_PATH. Default true
	bool read_files;          // the filesystem resolver. Default true; false: only `resolve`
	bool confine_paths;       // refuse absolute paths, file:// and "..". Default false
	snm_resolve_fn resolve;   // asked first; NULL: none
	void* resolve_user;
	bool missing_fallback; // a mesh not found is a warning (no visual or shape) instead of an error
	bool load_visuals;     // read visuals' meshes. Default true
	bool load_collisions;  // read collisions' meshes. Default true
	snm_mesh_limits limits;
} snm_mesh_options;

snm_mesh_options snm_default_mesh_options(void);

// The filesystem resolver alone, as snm_model_load_meshes uses it after options->resolve (the rules above:
// package:// in options->package_path then SINEW_MODEL_PATH when options->use_env_path, file://, absolute
// and relative paths from options->base_dir, confine_paths): for a resolver of one's own that reads some
// URIs from disk (a server that takes a client's files but package:// ones from its model path), or for
// finding a file (a URDF) on a model path. The returns of a resolver; SN_ERR_UNSUPPORTED for a URI
// scheme it does not know; a URI that confine_paths (or a ".." in a package URI) refuses gives
// SN_ERR_INVALID_ARGUMENT and says so in looked.
sn_error snm_resolve_file(const snm_mesh_options* options, const char* uri, size_t max_bytes, snm_asset* asset,
						  char* looked, size_t looked_capacity);

// Read the meshes (see above) into the model. On failure the model is as it was (no mesh kept) and
// *error names the URI, the element and what is wrong (error->asset says which kind). Calling it again
// replaces what an earlier call read.
sn_error snm_model_load_meshes(snm_model* model, const snm_mesh_options* options, snm_error* error);

// Read a URDF file and its meshes: snm_load_urdf_file, then snm_model_load_meshes with base_dir the
// file's folder (when options->base_dir is NULL). options NULL: snm_default_mesh_options().
sn_error snm_import_urdf_file(const char* path, const snm_limits* limits, const snm_mesh_options* options,
							  snm_model** out_model, snm_error* error);

// The reader alone: bytes of a file named `name` (its extension picks the format) into a mesh. limits
// NULL: the defaults. For tests and fuzzing; snm_model_load_meshes uses it.
sn_error snm_read_mesh(const void* data, size_t size, const char* name, const snm_mesh_limits* limits,
					   snm_mesh** out_mesh, snm_error* error);
void snm_mesh_destroy(snm_mesh* mesh);

// FNV-1a, 64 bits (offset basis 0xcbf29ce484222325, prime 0x100000001b3): the content hash of mesh files.
uint64_t snm_fnv1a64(const void* data, size_t size);

// A visual with a mesh, for drawing (the wire and the dashboard): its link, where it sits, how it is
// scaled and coloured, and the mesh.
typedef struct snm_visual_mesh
{
	int visual; // index into model->visuals
	int link;   // model link index
	const char* link_name;
	sn_transform origin; // the mesh's frame in the link frame
	sn_vec3 scale;       // <mesh scale>: multiply positions by it (and normals by its inverse, renormalised)
	bool has_color;      // the URDF gave a colour (rgba); else draw the mesh's parts in their own colours
	double rgba[4];
	const snm_mesh* mesh; // positions, normals, indices, parts, hash
} snm_visual_mesh;

// The visuals whose mesh was read, in visual order: writes at most capacity, returns how many there are.
int snm_model_get_visual_meshes(const snm_model* model, snm_visual_mesh* out, int capacity);

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
	// <collision> elements become shapes on their links' bodies (default true): box, cylinder and sphere
	// as the core's; a mesh (read by snm_model_load_meshes; one not read is left out with a warning) as
	// the convex hull of its scaled vertices on a link (moving, or the fixed base: the core takes
	// triangle meshes only on static bodies and the world, and a fixed base's link is neither: it is made
	// and destroyed with the articulation and follows sn_articulation_set_base_pose), and as a triangle
	// mesh when it belongs to the world (a massless root above a floating base). A degenerate geometry
	// (zero size, a flat hull) is left out with a warning.
	bool collision_shapes;
	// Triangles the world's own triangle meshes (above) may have together, as read (before degenerate
	// ones are dropped) and before any shape is made: more fail the build with SN_ERR_CAPACITY and
	// error->asset SNM_ASSET_TOO_MANY_TRIANGLES (a server bounds a world's meshes). Default INT64_MAX:
	// none but the core's own bound per mesh.
	int64_t max_world_mesh_triangles;
	sn_material collision_material; // Default sn_default_material().
	sn_filter collision_filter;     // Default sn_default_filter().
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
	int shape_count;              // shapes made from <collision> elements
	sn_shape_id* shapes;          // [shape_count]
	int* shape_collision;         // [shape_count]: the model collision each shape came from
	int hull_vertex_count;        // vertices of all hull shapes together (as the core computed them)
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
// Take back what a successful snm_build made (its articulation, with its links' shapes and mimic joints, and
// the shapes it gave the world): the world as it was before, for a caller that refuses the result.
void snm_build_undo(sn_world* world, const snm_build_result* result);

#ifdef __cplusplus
}
#endif

#endif
