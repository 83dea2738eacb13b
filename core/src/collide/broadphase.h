// Broadphase: three dynamic trees (static, kinematic, dynamic proxies), a move buffer, and pair finding
// in a deterministic order (broadphase.c has the design). Proxies are named by keys: (tree proxy id << 2)
// | body type, stable until destroyed.
#ifndef SINEW_COLLIDE_BROADPHASE_H
#define SINEW_COLLIDE_BROADPHASE_H

#include "collide/dynamic_tree.h"

#include "sinew/base.h"

typedef enum broadphase_type
{
	BROADPHASE_STATIC = 0,
	BROADPHASE_KINEMATIC = 1,
	BROADPHASE_DYNAMIC = 2,
	BROADPHASE_TYPE_COUNT = 3
} broadphase_type;

#define BROADPHASE_NULL_KEY (-1)

static inline int32_t broadphase_key(broadphase_type type, int32_t proxy)
{
	return (proxy << 2) | (int32_t)type;
}
static inline broadphase_type broadphase_key_type(int32_t key)
{
	return (broadphase_type)(key & 3);
}
static inline int32_t broadphase_key_proxy(int32_t key)
{
	return key >> 2;
}

// A candidate pair of shapes by the callers' ids (user_a < user_b).
typedef struct broadphase_pair
{
	int32_t user_a;
	int32_t user_b;
} broadphase_pair;

// Default fattening of proxy boxes, m: 0.1 (Box2D's b2_aabbMargin). A body moving less than this per
// step keeps its proxy where it is, so the trees change only for fast or far movers.
#define BROADPHASE_DEFAULT_MARGIN 0.1

typedef struct broadphase
{
	dynamic_tree trees[BROADPHASE_TYPE_COUNT];
	double margin;  // fattening of every proxy box, m
	int32_t* moves; // keys of proxies moved (or created) since the last pair update
	int move_count;
	int move_capacity;
	broadphase_pair* pairs; // the last update's new pairs, sorted by (user_a, user_b)
	int pair_count;
	int pair_capacity;
	int max_pairs;          // new pairs one update may report (0: no bound); beyond it they are counted
	uint64_t pairs_dropped; // pairs not reported for max_pairs, since the broadphase was made
} broadphase;

void broadphase_init(broadphase* bp, double margin);
void broadphase_release(broadphase* bp, sn_memory* memory);

// Adds a proxy for a shape's tight box (the tree stores it grown by the margin) and marks it moved, so
// the next update pairs it with what it overlaps. Makes room for one more move in advance, so that
// moving never allocates. SN_ERR_NO_MEMORY leaves everything as it was.
sn_error broadphase_create_proxy(broadphase* bp, sn_memory* memory, collide_aabb aabb, uint64_t category, int32_t user,
								 broadphase_type type, int32_t* out_key);
// Adds a proxy whose fat box is given as it is (a restored snapshot's, or a proxy re-made with a new
// category), buffered as moved only if `moved`. Reserves like broadphase_create_proxy.
sn_error broadphase_create_proxy_fat(broadphase* bp, sn_memory* memory, collide_aabb fat, uint64_t category,
									 int32_t user, broadphase_type type, bool moved, int32_t* out_key);
void broadphase_destroy_proxy(broadphase* bp, int32_t key);
// Makes room for count more proxies in the tree of `type` (and in the move buffer), so that creating
// them allocates nothing. SN_ERR_NO_MEMORY changes nothing that matters (capacities only).
sn_error broadphase_reserve(broadphase* bp, sn_memory* memory, broadphase_type type, int count);
// Whether a proxy is in the move buffer (created, moved or touched since the last pair update).
static inline bool broadphase_proxy_moved(const broadphase* bp, int32_t key)
{
	return (bp->trees[broadphase_key_type(key)].nodes[broadphase_key_proxy(key)].flags & TREE_MOVED) != 0;
}

// A shape's new tight box. If it still fits in the proxy's fat box nothing happens (returns false);
// otherwise the proxy is reinserted with the new box grown by the margin and buffered as moved (returns
// true). No allocation.
bool broadphase_move_proxy(broadphase* bp, int32_t key, collide_aabb aabb);

// The same with a margin of the caller's instead of bp->margin (a fattening per proxy).
bool broadphase_move_proxy_by(broadphase* bp, int32_t key, collide_aabb aabb, double margin);

// Marks a proxy moved without changing its box (a filter change: its pairs must be found again).
void broadphase_touch_proxy(broadphase* bp, int32_t key);

static inline collide_aabb broadphase_fat_aabb(const broadphase* bp, int32_t key)
{
	return tree_fat_aabb(&bp->trees[broadphase_key_type(key)], broadphase_key_proxy(key));
}

// Sorts pairs by (user_a, user_b) in place: a heap sort (Williams 1964), O(n log n) with no allocation,
// which a step may call (the C library's qsort may allocate its scratch). Equal pairs end up adjacent in
// an order that depends only on the input order.
void broadphase_sort_pairs(broadphase_pair* pairs, int count);

// Whether two proxies may pair at all, by the callers' ids (the world's filter: categories and masks,
// same body, joints, exclusions). NULL admits every pair.
typedef bool (*broadphase_filter_fn)(void* context, int32_t user_a, int32_t user_b);

// Finds the pairs of fat boxes that began to overlap: each moved proxy queries the trees it can pair
// with (a dynamic proxy all three, a static or kinematic one only the dynamic tree, as Box2D pairs
// them). Writes bp->pairs sorted by (user_a, user_b), without duplicates, and clears the move buffer.
// A pair already overlapping may be reported again when one of its proxies moved: the caller's pair
// cache keeps what it has. Grows the pair buffer when this update finds more pairs than any before
// (SN_ERR_NO_MEMORY: the moves stay buffered and nothing is lost).
sn_error broadphase_update_pairs(broadphase* bp, sn_memory* memory, broadphase_filter_fn filter, void* context);

// Visits every proxy whose fat box overlaps aabb and whose category meets mask, tree by tree (static,
// kinematic, dynamic). The visitor gets the proxy's key in place of the tree's proxy id.
void broadphase_query(const broadphase* bp, collide_aabb aabb, uint64_t mask, tree_query_fn visit, void* context);
// Visits every proxy whose fat box the ray reaches (tree by tree; the visitor's returned end clips the
// ray for the trees that follow too).
void broadphase_ray_cast(const broadphase* bp, sn_vec3 origin, sn_vec3 translation, double max_fraction, uint64_t mask,
						 tree_ray_fn visit, void* context);

#endif
