// Internal shape record: what a world keeps for each shape (shape.c), and the helpers the collision
// stage, the queries and the snapshot share.
#ifndef SINEW_SHAPE_INTERNAL_H
#define SINEW_SHAPE_INTERNAL_H

#include "alloc.h"
#include "collide/geometry.h"

#include "sinew/shape.h"

typedef struct sn_world sn_world;

// The source geometry of a hull or mesh shape, and what was built from it. A hull keeps its input points
// (a snapshot rebuilds the hull from them, so the rebuilt hull is the same to the bit, feature ids
// included); a mesh keeps its vertices and triangles as given in the built mesh itself.
typedef struct shape_source
{
	size_t bytes;       // of this record and its points (one allocation)
	int point_count;    // hull input points
	sn_vec3* points;    // [point_count], in the same allocation
	collide_hull* hull; // built by hull_build (its own allocation)
	collide_mesh* mesh; // built by mesh_build (its own allocation)
} shape_source;

enum
{
	SHAPE_FIND_PAIRS = 1, // find its pairs with planes (a plane: with every dynamic shape) in the next update
	SHAPE_FAR = 2,        // beyond SN_COLLIDE_WORLD_EXTENT at the last update: no contacts
};

typedef struct shape
{
	uint32_t generation; // changes when the slot is freed
	int32_t next_free;   // free-list link while dead
	bool live;
	bool sensor;
	uint8_t flags;        // SHAPE_*
	int32_t body;         // body slot, -1 for the world
	int32_t next_in_body; // the body's (or the world's) next shape, -1 at the end
	int32_t proxy;        // broadphase key, BROADPHASE_NULL_KEY for planes (they stay out of the trees)
	sn_transform local;   // in the body frame (in the world frame for the world's shapes), unit quaternion
	double reach;         // largest distance of the solid from the shape's origin, m (0 for mesh and plane)
	collide_shape geom;   // in the shape's frame; hull and mesh point into source
	shape_source* source; // hulls and meshes; NULL for primitives
	sn_material material;
	sn_filter filter;
	uint64_t user_data;
	// At the last collision update (contact/update.c):
	sn_transform xf;           // world pose of the shape's frame
	double speed;              // bound on the speed of any point of the solid, m/s
	collide_aabb box;          // its box grown by the step's motion and half the speculative distance
	collide_plane world_plane; // planes: normal . x <= offset in world coordinates
} shape;

// The shape at a valid id, or NULL.
shape* shape_get(const sn_world* world, sn_shape_id id);
sn_shape_id shape_id_of(const sn_world* world, int32_t index);
// World pose of a shape's frame now (from its body's current pose, a link's from its articulation).
sn_transform shape_pose_now(const sn_world* world, const shape* s);
// The plane of a plane shape placed at xf, in world coordinates.
collide_plane shape_world_plane(const shape* s, sn_transform xf);
// Whether the body slot (or -1, the world) holds only static geometry: the world or a static body.
bool shape_body_is_static(const sn_world* world, int32_t owner);

// Validate a geometry and build it: a primitive into *out; a hull or mesh also into *source (allocated
// through the world's memory). Errors with the world's detail line (what: the call's name); nothing is
// allocated on failure.
sn_error shape_build_geometry(sn_world* world, const char* what, const sn_geometry* g, collide_shape* out,
							  shape_source** source);
void shape_free_source(sn_world* world, shape_source* source);
// The largest distance of a solid from its frame's origin, m (0 for meshes and planes).
double shape_reach(const collide_shape* g);
// Validation of the other def fields, shared with the snapshot.
sn_error shape_check_material(sn_world* world, const char* what, sn_material material);
sn_error shape_check_local_pose(sn_world* world, const char* what, sn_transform pose, sn_transform* unit);

// Destroy every shape of a body slot (body destruction; no allocation).
void shape_destroy_body_shapes(sn_world* world, int32_t owner);
// A body's shapes must find their pairs again: their proxies are marked moved and their plane pairs
// searched in the next update (a filter rule changed, or the body changed type).
void shape_touch_body(sn_world* world, int32_t owner);
// Move a body's shapes into the broadphase tree of its (new) type. SN_ERR_NO_MEMORY leaves them as they
// were.
sn_error shape_retype_body(sn_world* world, int32_t owner, sn_body_type type);
// Whether any shape of the body is a mesh or a plane (static geometry).
bool shape_body_has_static_geometry(const sn_world* world, int32_t owner);
// Free every shape's storage (world destruction).
void shape_release_all(sn_world* world);

#endif
