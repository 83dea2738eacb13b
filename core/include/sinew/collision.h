// Sinew core: collision detection in the world. Contacts, events and queries.
//
// Once per sn_world_step, before the solver (as Box2D v3 does), the world detects collisions between
// the shapes (shape.h) at the poses the step starts from:
//   1. every moving shape's box is grown by how far its body can move over the step (its centre speed,
//      plus what gravity adds in the step, plus its spin times the shape's reach from the centre of mass,
//      times the time step), and by half the speculative distance, then fattened in a dynamic AABB tree
//      (by 0.1 m, Box2D's margin, but at most half the shape's reach; static geometry not at all), where
//      it is re-inserted only when it leaves its fat box;
//   2. the tree finds the pairs of fat boxes that begin to overlap; planes stay out of the tree and pair
//      with every dynamic or link shape whose fat box comes within half the speculative distance of
//      them; a pair needs a dynamic body or a link on one side (as in Box2D and Jolt, kinematic and
//      static bodies do not collide with each other);
//   3. every pair whose fat boxes still overlap gets its contact manifolds from the narrowphase (when its
//      grown boxes overlap: otherwise it is farther apart than its margin), within a speculative margin
//      of SN_SPECULATIVE_DISTANCE plus the distance the two bodies can close in one step (the sum of their
//      speed bounds of 1., times the step): a fast body sees the surface it is about to reach one step
//      ahead, so a solver can stop it there instead of letting it pass through;
//   4. each new contact point takes over the warm-start impulses of last step's point with the same
//      feature id (manifold feature ids persist while the same features touch);
//   5. pairs that began or stopped touching, and sensors that began or stopped overlapping a shape, are
//      recorded as events.
// Everything is ordered by shape id, never by address: the same world gives the same contacts, in the
// same order, on every run.
//
// A pair of shapes has up to SN_MAX_MANIFOLDS manifolds (one for two convex shapes; a mesh pair one per
// distinct normal, for example a box in the corner of a floor and a wall), each with up to
// SN_MANIFOLD_MAX_POINTS points. Shapes beyond SN_COLLIDE_WORLD_EXTENT of the origin do not collide.
#ifndef SINEW_COLLISION_H
#define SINEW_COLLISION_H

#include "sinew/shape.h"

#ifdef __cplusplus
extern "C" {
#endif

// The part of every pair's speculative margin that does not depend on speed, m: 0.02 (Box2D's
// speculative distance, 4 linear slops, and Jolt's default): room for what the solver changes about the
// motion within the step (contact impulses), beyond the speed bounds.
#define SN_SPECULATIVE_DISTANCE 0.02
// A pair touches when a contact point's separation is at most this, m: 0.001. Above the rounding of
// separations on metre-sized shapes and the sub-millimetre gap a contact solver may leave at rest (so
// touching does not flicker), below any gap a user would call apart.
#define SN_CONTACT_TOUCH_DISTANCE 0.001
// Shapes whose world box reaches farther than this from the origin (m), or is not finite, are parked in
// the broadphase away from everything and produce no contacts until they come back: beyond it the
// tree's surface areas and the narrowphase's squared distances lose the precision contacts need. The
// same bound as joint frame offsets (SN_MAX_OFFSET).
#define SN_COLLIDE_WORLD_EXTENT 1.0e9
// Points per manifold: four hold a box resting on a face (Box2D, Bullet, Jolt and PhysX keep four).
#define SN_MANIFOLD_MAX_POINTS 4
// Manifolds per pair of shapes: one for convex pairs, up to four distinct normals against a mesh.
#define SN_MAX_MANIFOLDS 4
// Contact and sensor events kept per step, of each kind: 65536 (4 MB at most per kind). Events beyond
// it are counted (sn_contact_events.dropped) and lost.
#define SN_MAX_CONTACT_EVENTS 65536
// Pairs of shapes a world keeps: 2^20. The contact scenes need 10^3 to 10^4 (C7's 1,000 spheres about
// 10,500); a million is a hundred of them in one world, and keeps the pair cache near 130 MB. Beyond it,
// new pairs are not made (sn_collision_stats.pairs_dropped counts them; they are found again when one of
// their shapes moves), so shapes heaped on each other cannot grow a world's memory quadratically.
#define SN_MAX_CONTACT_PAIRS (1 << 20)

// One contact point of a manifold.
typedef struct sn_contact_point
{
	sn_vec3 position;    // world, midway between the two surfaces, m
	double separation;   // along the normal, m; negative when the shapes overlap, positive for a speculative point
	uint64_t feature_id; // the pair of features that made it; the same while the same features touch
	// The impulses the contact solver applied at this point over the last step (N*s), on B (A takes the
	// opposite): along the normal (>= 0) and along the manifold's two tangents (friction). They also warm-
	// start the next step: a point of the next step with the same feature id (or, failing that, at the
	// same place within 2 mm) starts from them.
	double normal_impulse;
	double tangent_impulse[2];
	// The same as forces averaged over the last step (impulse / time_step), N: the normal force and the
	// whole contact force on B (normal plus friction), world.
	double normal_force;
	sn_vec3 force;
	bool persisted; // matched a point of the last step (by feature id or place)
} sn_contact_point;

// One manifold: what two shapes touch with along one normal.
typedef struct sn_contact
{
	sn_shape_id shape_a; // the shape with the smaller id (slot)
	sn_shape_id shape_b;
	sn_body_id body_a; // a null id for the world's own shapes
	sn_body_id body_b;
	sn_vec3 normal;     // unit, world, from shape A to shape B
	sn_vec3 tangent[2]; // the friction directions of tangent_impulse: (normal, tangent[0], tangent[1]) right-handed
	bool touching;      // a point's separation is at most SN_CONTACT_TOUCH_DISTANCE
	int point_count;    // 1..SN_MANIFOLD_MAX_POINTS
	sn_contact_point points[SN_MANIFOLD_MAX_POINTS];
} sn_contact;

// The manifolds of the last step (only pairs with points: speculative ones included), in pair order
// (shape A's slot, then shape B's). Write at most capacity, return the total count.
int sn_world_get_contacts(const sn_world* world, sn_contact* contacts, int capacity);
// Those of one body (either side), and of one shape.
int sn_body_get_contacts(const sn_world* world, sn_body_id body, sn_contact* contacts, int capacity);
int sn_shape_get_contacts(const sn_world* world, sn_shape_id shape, sn_contact* contacts, int capacity);
// Those between two shapes (either order; the records name A as the smaller slot).
int sn_shape_pair_get_contacts(const sn_world* world, sn_shape_id a, sn_shape_id b, sn_contact* contacts, int capacity);

// Counts of the last step, for tests, benchmarks and dashboards.
typedef struct sn_collision_stats
{
	int shapes;        // live shapes
	int proxies;       // shapes in the broadphase trees (planes are not)
	int pairs;         // pairs whose fat boxes overlap (sensor pairs included)
	int manifolds;     // manifolds with points
	int points;        // contact points (speculative included)
	int touching;      // pairs touching (sensor pairs: overlapping)
	int pairs_begun;   // pairs made in the last step
	int pairs_ended;   // pairs dropped in the last step
	int proxies_moved; // proxies re-inserted in the last step
	double deepest;    // most negative separation of the last step, m (0 when none overlap)
	// New pairs not made for SN_MAX_CONTACT_PAIRS since the world was created or restored.
	uint64_t pairs_dropped;
} sn_collision_stats;
sn_collision_stats sn_world_get_collision_stats(const sn_world* world);

// ---- events ------------------------------------------------------------------------------------------

// Two shapes began or stopped touching (a pair that ends because a shape was destroyed or filtered out
// while touching also ends here: its ids may then be stale).
typedef struct sn_contact_event
{
	sn_shape_id shape_a; // smaller slot
	sn_shape_id shape_b;
	sn_body_id body_a;
	sn_body_id body_b;
} sn_contact_event;

// A sensor began or stopped overlapping a shape.
typedef struct sn_sensor_event
{
	sn_shape_id sensor;
	sn_shape_id visitor;
	sn_body_id sensor_body;
	sn_body_id visitor_body;
} sn_sensor_event;

// The events of the last step, in pair order. Pointers valid until the next step or destroy call.
typedef struct sn_contact_events
{
	const sn_contact_event* begin;
	int begin_count;
	const sn_contact_event* end;
	int end_count;
	const sn_sensor_event* sensor_begin;
	int sensor_begin_count;
	const sn_sensor_event* sensor_end;
	int sensor_end_count;
	uint64_t dropped;       // events of the last step beyond SN_MAX_CONTACT_EVENTS of their kind
	uint64_t dropped_total; // since the world was created
} sn_contact_events;
sn_contact_events sn_world_get_contact_events(const sn_world* world);

// ---- queries -----------------------------------------------------------------------------------------
// Queries see the shapes where they are now (after any setter), not where the last step found them.
// Inputs are validated: a ray or pose that is not finite, a bad geometry or filter, an invalid id give a
// typed error with a detail line and no result.

// Which shapes a query sees: a shape passes when (shape category & mask) != 0 and (shape mask & category)
// != 0, as a shape of this filter would collide with it.
typedef struct sn_query_filter
{
	uint64_t category;    // default all bits
	uint64_t mask;        // default all bits
	bool include_sensors; // default false
} sn_query_filter;
sn_query_filter sn_default_query_filter(void);

typedef struct sn_ray_hit
{
	sn_shape_id shape;
	sn_body_id body;  // a null id for the world's own shapes
	sn_vec3 point;    // world, m
	sn_vec3 normal;   // unit surface normal at the hit, facing the ray
	double fraction;  // of the translation, in [0, 1]
	int32_t triangle; // a mesh's triangle index, -1 for other shapes
} sn_ray_hit;

// The segment origin + t translation, t in [0, 1] (m). A ray that starts inside a solid does not hit it
// (a range sensor inside a robot's own link sees past it); a mesh is hit from either side. A zero
// translation hits nothing.
// Closest hit: *hit_found tells whether there was one (ties go to the smaller shape slot).
sn_error sn_world_ray_cast_closest(sn_world* world, sn_vec3 origin, sn_vec3 translation, const sn_query_filter* filter,
								   sn_ray_hit* hit, bool* hit_found);
// Every shape the segment enters (its first entry each), nearest first (ties by shape slot): writes at
// most capacity, *count gets the total.
sn_error sn_world_ray_cast_all(sn_world* world, sn_vec3 origin, sn_vec3 translation, const sn_query_filter* filter,
							   sn_ray_hit* hits, int capacity, int* count);

// The shapes that overlap (touching counts) a solid of `geometry` (sphere, capsule, box, cylinder or
// hull) at world pose `pose`, in slot order: writes at most capacity, *count gets the total.
sn_error sn_world_overlap_geometry(sn_world* world, const sn_geometry* geometry, sn_transform pose,
								   const sn_query_filter* filter, sn_shape_id* shapes, int capacity, int* count);

typedef struct sn_distance_result
{
	double distance; // m: >= 0 apart; < 0 overlapping (minus the penetration depth)
	sn_vec3 point_a; // on A's surface, world, m
	sn_vec3 point_b; // on B's surface, world, m
	sn_vec3 normal;  // unit, from A to B
} sn_distance_result;
// Closest points and distance of two shapes where they are now: convex shapes by GJK (and EPA when they
// overlap), a plane and a convex shape exactly, a mesh and a convex shape by its nearest triangle (a mesh
// is a surface with no inside: when the solid overlaps it, the depth is the one into the triangle it
// overlaps most). Two static shapes (planes and meshes): SN_ERR_UNSUPPORTED.
sn_error sn_shape_get_closest_points(sn_world* world, sn_shape_id a, sn_shape_id b, sn_distance_result* out);

#ifdef __cplusplus
}
#endif

#endif
