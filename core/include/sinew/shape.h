// Sinew core: collision shapes, their materials and filters, and mass properties from shapes.
//
// A shape gives a body its geometry for collision detection. A body (dynamic, kinematic, static, or the
// body of an articulation link: sn_articulation_get_link_body) carries zero or more shapes, each placed
// by a local pose in the body frame: a compound. A shape on no body (a null body id) belongs to the world
// itself: static geometry placed in world coordinates (a floor, terrain).
//
//   sphere    radius r about the shape's origin
//   capsule   the segment from (0, 0, -h) to (0, 0, h) swept by a sphere of radius r: half-length h of
//             the core segment along local z, total length 2 h + 2 r (MuJoCo's and Jolt's convention)
//   box       half-extents (hx, hy, hz) about the origin
//   cylinder  radius r about local z, from z = -h to z = h
//   hull      the convex hull of the given points, computed by the core (up to
//             SN_SHAPE_MAX_HULL_VERTICES vertices: a cloud with more extreme points keeps the most extreme)
//   mesh      triangles over shared vertices (counter-clockwise around the front face, collided from
//             both sides): static geometry only (a static body or the world); a moving body takes hulls
//   plane     the half-space normal . x <= offset in the body frame (solid below): static only
//
// Shapes never change a body's mass unless asked (sn_body_set_mass_from_shapes). The core copies hull
// points and mesh data; the caller's arrays may be freed after the create call. Sizes in metres.
//
// Filtering: two shapes collide when each one's category meets the other's mask (Box2D's rule), they are
// on different bodies, at least one of their bodies is dynamic or an articulation link, and no rule
// below turns the pair off:
//   - two links of one articulation collide only when the articulation's self-collision is on
//     (sn_articulation_def.self_collision, off by default), and never a link with its parent;
//   - bodies joined by a maximal joint do not collide unless the joint says collide_connected;
//   - sn_world_set_pair_collision turns off the pair of two bodies (links included) explicitly;
//   - two sensors never pair.
// Sensor shapes pair like other shapes but exert nothing: they report overlaps (collision.h, sensor
// events) and never contact points. A sensor on a kinematic or static body sees only dynamic bodies and
// links (the pairs the broadphase makes).
#ifndef SINEW_SHAPE_H
#define SINEW_SHAPE_H

#include "sinew/world.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sn_shape_type
{
	SN_SHAPE_SPHERE = 0,
	SN_SHAPE_CAPSULE = 1,
	SN_SHAPE_BOX = 2,
	SN_SHAPE_CYLINDER = 3,
	SN_SHAPE_HULL = 4,
	SN_SHAPE_MESH = 5,  // static only
	SN_SHAPE_PLANE = 6, // static only
	SN_SHAPE_TYPE_COUNT
} sn_shape_type;

// Name of a shape type in lower case ("sphere", ...), or "unknown".
const char* sn_shape_type_name(sn_shape_type type);

// Limits, each with its reason.
// Sizes (radii, half-extents, half-lengths) and plane offsets at most 1e6 m, local pose offsets too:
// beyond it the narrowphase's relative tolerances (about 1e-9 of a size) exceed the sub-millimetre detail
// a contact needs next to smaller shapes. Sizes at least 1e-9 m (squared sizes would underflow them).
#define SN_SHAPE_MAX_SIZE 1.0e6
#define SN_SHAPE_MIN_SIZE 1.0e-9
// Hull vertices kept: 256 (PhysX's and Jolt's bound; a robot link's hull needs tens). Hull input points:
// 2^20, which bounds the build's scratch (about 40 bytes a point); decimate larger clouds first.
#define SN_SHAPE_MAX_HULL_VERTICES 256
#define SN_SHAPE_MAX_HULL_POINTS (1 << 20)
// Mesh triangles: 2^21 (about 120 MB with vertices and the bounding volume hierarchy), vertices three per
// triangle: what one model may make a server hold.
#define SN_SHAPE_MAX_MESH_TRIANGLES (1 << 21)
#define SN_SHAPE_MAX_MESH_VERTICES (3 * SN_SHAPE_MAX_MESH_TRIANGLES)

// A shape's geometry: the type and that type's fields (a tagged union; the sn_geometry_* helpers fill one).
typedef struct sn_geometry
{
	sn_shape_type type;
	union
	{
		struct
		{
			double radius; // m, > 0
		} sphere;
		struct
		{
			double radius;      // m, > 0
			double half_length; // half the core segment along local z, m, >= 0 (0 is a sphere)
		} capsule;
		struct
		{
			sn_vec3 half_extents; // m, each > 0
		} box;
		struct
		{
			double radius;      // m, > 0
			double half_height; // m, > 0 (the cylinder spans z in [-half_height, half_height])
		} cylinder;
		struct
		{
			const sn_vec3* points; // [point_count] in the shape's frame, m; not all in one plane
			int point_count;       // 4..SN_SHAPE_MAX_HULL_POINTS
		} hull;
		struct
		{
			const sn_vec3* vertices; // [vertex_count] in the shape's frame, m
			int vertex_count;        // 3..SN_SHAPE_MAX_MESH_VERTICES
			const int32_t* indices;  // [3 * triangle_count] vertex indices, counter-clockwise from the front
			int triangle_count;      // 1..SN_SHAPE_MAX_MESH_TRIANGLES; none degenerate
		} mesh;
		struct
		{
			sn_vec3 normal; // outward, normalised on creation (not zero)
			double offset;  // m: the plane is normal . x = offset (unit normal), the solid below it
		} plane;
	};
} sn_geometry;

// The helpers first clear the union through its largest member (the mesh), so that no byte of the result
// is left undefined, then set the type's fields.
static inline sn_geometry sn_geometry_sphere(double radius)
{
	sn_geometry g;
	g.type = SN_SHAPE_SPHERE;
	g.mesh.vertices = 0;
	g.mesh.indices = 0;
	g.mesh.vertex_count = 0;
	g.mesh.triangle_count = 0;
	g.sphere.radius = radius;
	return g;
}
static inline sn_geometry sn_geometry_capsule(double radius, double half_length)
{
	sn_geometry g = sn_geometry_sphere(0.0);
	g.type = SN_SHAPE_CAPSULE;
	g.capsule.radius = radius;
	g.capsule.half_length = half_length;
	return g;
}
static inline sn_geometry sn_geometry_box(sn_vec3 half_extents)
{
	sn_geometry g = sn_geometry_sphere(0.0);
	g.type = SN_SHAPE_BOX;
	g.box.half_extents = half_extents;
	return g;
}
static inline sn_geometry sn_geometry_cylinder(double radius, double half_height)
{
	sn_geometry g = sn_geometry_sphere(0.0);
	g.type = SN_SHAPE_CYLINDER;
	g.cylinder.radius = radius;
	g.cylinder.half_height = half_height;
	return g;
}
static inline sn_geometry sn_geometry_hull(const sn_vec3* points, int point_count)
{
	sn_geometry g = sn_geometry_sphere(0.0);
	g.type = SN_SHAPE_HULL;
	g.hull.points = points;
	g.hull.point_count = point_count;
	return g;
}
static inline sn_geometry sn_geometry_mesh(const sn_vec3* vertices, int vertex_count, const int32_t* indices,
										   int triangle_count)
{
	sn_geometry g = sn_geometry_sphere(0.0);
	g.type = SN_SHAPE_MESH;
	g.mesh.vertices = vertices;
	g.mesh.vertex_count = vertex_count;
	g.mesh.indices = indices;
	g.mesh.triangle_count = triangle_count;
	return g;
}
static inline sn_geometry sn_geometry_plane(sn_vec3 normal, double offset)
{
	sn_geometry g = sn_geometry_sphere(0.0);
	g.type = SN_SHAPE_PLANE;
	g.plane.normal = normal;
	g.plane.offset = offset;
	return g;
}

// What a shape's surface is made of. The contact solver mixes the two shapes' materials of a contact
// (the contact dynamics issue documents the rule).
typedef struct sn_material
{
	double friction;    // Coulomb friction coefficient, finite, >= 0. Default 0.6 (Box2D's default)
	double restitution; // coefficient of restitution in [0, 1]. Default 0
	sn_soft soft;       // contact softness (types.h), the same three forms as joints. Default rigid
} sn_material;

// Collision filter (Box2D's): a shape is in the categories of `category` and collides with the categories
// of `mask`. Two shapes collide only if (a.category & b.mask) != 0 and (b.category & a.mask) != 0.
typedef struct sn_filter
{
	uint64_t category; // default 1
	uint64_t mask;     // default all bits
} sn_filter;

typedef struct sn_shape_def
{
	// The body it belongs to (any type, articulation links' bodies included); a null id: the world itself
	// (the local pose is then a world pose). Meshes and planes need the world or a static body.
	sn_body_id body;
	// Pose of the shape's frame in the body frame (m, unit quaternion; normalised on creation; the offset
	// at most SN_SHAPE_MAX_SIZE). Default identity.
	sn_transform local_pose;
	// Default a sphere of radius 0.1 m.
	sn_geometry geometry;
	sn_material material;
	sn_filter filter;
	// A sensor reports overlaps and exerts nothing. Default false.
	bool is_sensor;
	uint64_t user_data;
} sn_shape_def;

sn_shape_def sn_default_shape_def(void);
sn_material sn_default_material(void);
sn_filter sn_default_filter(void);

// Create a shape. Validates the def whole (a body that is not live: SN_ERR_INVALID_ID; sizes as in
// sn_geometry: SN_ERR_NOT_FINITE, SN_ERR_NEGATIVE_VALUE, SN_ERR_INVALID_ARGUMENT for zero or out of
// range; a hull of coplanar, collinear or coincident points and a mesh with no triangles, an index out of
// range or a degenerate triangle: SN_ERR_INVALID_ARGUMENT; too many points or triangles: SN_ERR_CAPACITY;
// a mesh or a plane on a body that is not static: SN_ERR_WRONG_TYPE; the material and the filter) and
// changes nothing on failure. The new shape takes part from the next step on.
sn_error sn_create_shape(sn_world* world, const sn_shape_def* def, sn_shape_id* out_id);
// Destroy a shape (its contacts end in the next step, with end events).
sn_error sn_destroy_shape(sn_world* world, sn_shape_id id);
bool sn_shape_is_valid(const sn_world* world, sn_shape_id id);

// Getters return zero values for an invalid id (identity poses).
sn_shape_type sn_shape_get_type(const sn_world* world, sn_shape_id id);
// The body (a null id for the world's own shapes).
sn_body_id sn_shape_get_body(const sn_world* world, sn_shape_id id);
sn_transform sn_shape_get_local_pose(const sn_world* world, sn_shape_id id);
// World pose of the shape's frame now (the body's pose times the local pose), m and unit quaternion.
sn_transform sn_shape_get_pose(const sn_world* world, sn_shape_id id);
// The geometry as created (a plane's normal normalised). A hull's points and a mesh's vertices and
// indices point into the core's copy, valid until the shape is destroyed.
sn_error sn_shape_get_geometry(const sn_world* world, sn_shape_id id, sn_geometry* out);
// A hull's computed vertices (shape frame, m): writes at most capacity, returns the count (0 for other
// types and invalid ids).
int sn_shape_get_hull_vertices(const sn_world* world, sn_shape_id id, sn_vec3* vertices, int capacity);
// The shape's world-space bounding box now (m). A plane's extends 1e12 m along axes it does not close off.
sn_error sn_shape_get_bounds(const sn_world* world, sn_shape_id id, sn_vec3* lower, sn_vec3* upper);
bool sn_shape_is_sensor(const sn_world* world, sn_shape_id id);
uint64_t sn_shape_get_user_data(const sn_world* world, sn_shape_id id);
sn_error sn_shape_set_user_data(sn_world* world, sn_shape_id id, uint64_t user_data);
// Material: friction finite and >= 0, restitution in [0, 1], softness as every sn_soft.
sn_material sn_shape_get_material(const sn_world* world, sn_shape_id id);
sn_error sn_shape_set_material(sn_world* world, sn_shape_id id, sn_material material);
// Filter: takes effect in the next step (pairs it no longer admits end there; new ones begin).
sn_filter sn_shape_get_filter(const sn_world* world, sn_shape_id id);
sn_error sn_shape_set_filter(sn_world* world, sn_shape_id id, sn_filter filter);

// Shapes of a body in creation order (a null body: the world's own shapes). Writes at most capacity ids,
// returns the total count (0 for a body that is not live).
int sn_body_get_shapes(const sn_world* world, sn_body_id body, sn_shape_id* ids, int capacity);
// Every live shape in slot order. Writes at most capacity ids, returns the total count.
int sn_world_get_shapes(const sn_world* world, sn_shape_id* ids, int capacity);
int sn_world_get_shape_count(const sn_world* world);

// Explicit exclusion (filtering): with enabled false, shapes of body_a and body_b never collide (sensors
// included), whatever their filters say; true lifts it. Either body may be a link's body; a null id is
// the world's own shapes. Takes effect in the next step. Destroying a body drops its exclusions.
sn_error sn_world_set_pair_collision(sn_world* world, sn_body_id body_a, sn_body_id body_b, bool enabled);
// False when an exclusion between the two bodies is set (true for ids that are not live).
bool sn_world_get_pair_collision(const sn_world* world, sn_body_id body_a, sn_body_id body_b);

// ---- mass properties from shapes ----------------------------------------------------------------------

typedef struct sn_mass_properties
{
	double mass;            // kg
	sn_vec3 center_of_mass; // in the body frame, m
	sn_mat33 inertia;       // about the centre of mass, body axes, kg*m^2
} sn_mass_properties;

// Mass properties of a shape def's solid at a uniform density (kg/m^3, finite, > 0), placed by its local
// pose: exact closed forms for spheres, capsules, boxes and cylinders, the divergence theorem for hulls
// (Mirtich 1996). Its geometry and local pose are validated like sn_create_shape's (the body and the
// material are not looked at); meshes and planes have no inside (SN_ERR_UNSUPPORTED). The world lends its allocator (a hull's build) and its detail line;
// nothing else changes.
sn_error sn_shape_def_compute_mass(sn_world* world, const sn_shape_def* def, double density, sn_mass_properties* out);
// Set a body's mass, centre of mass and inertia (as sn_body_set_mass_properties) from its shapes at a
// uniform density (kg/m^3): the compound of its solid shapes (sensors excluded) by the parallel-axis
// theorem. SN_ERR_INVALID_ARGUMENT when the body has no solid shape; SN_ERR_WRONG_TYPE for a link's body
// (its mass is the articulation's).
sn_error sn_body_set_mass_from_shapes(sn_world* world, sn_body_id body, double density);

#ifdef __cplusplus
}
#endif

#endif
