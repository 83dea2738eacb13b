// A dynamic AABB tree (dynamic_tree.c has the derivation): proxies by index, fattened boxes, insertion
// by the surface-area heuristic, rotations, and allocation-free queries. Memory comes from an sn_memory
// and grows only when the tree grows.
#ifndef SINEW_COLLIDE_DYNAMIC_TREE_H
#define SINEW_COLLIDE_DYNAMIC_TREE_H

#include "alloc.h"
#include "collide/aabb.h"

#include <stdint.h>

#define TREE_NULL (-1)

typedef struct tree_node
{
	collide_aabb aabb; // leaf: the fat box the caller gave; internal: the union of its children
	uint64_t category; // leaf: the proxy's category bits; internal: the union of its children's
	int32_t parent;    // TREE_NULL at the root; the next free node while free
	int32_t child1;    // TREE_NULL for a leaf
	int32_t child2;
	int32_t user;   // leaf: the caller's id (a shape's index)
	int16_t height; // leaf 0
	uint16_t flags; // TREE_ALLOCATED, TREE_MOVED
} tree_node;

#define TREE_ALLOCATED 1u
#define TREE_MOVED 2u // the broadphase's mark: in the move buffer since the last pair update

typedef struct dynamic_tree
{
	tree_node* nodes;
	int capacity;
	int node_count; // allocated
	int32_t root;
	int32_t free_list;
	int proxy_count;
} dynamic_tree;

void tree_init(dynamic_tree* tree);
void tree_release(dynamic_tree* tree, sn_memory* memory);

// Makes room for proxies more proxies without allocating later (a tree of n proxies has 2n - 1 nodes).
// False on out of memory (nothing changed).
bool tree_reserve(dynamic_tree* tree, sn_memory* memory, int proxies);

// Inserts a leaf with the given box; writes its proxy id (a node index, stable until destroyed). False on
// out of memory (nothing changed).
bool tree_create_proxy(dynamic_tree* tree, sn_memory* memory, collide_aabb aabb, uint64_t category, int32_t user,
					   int32_t* out_proxy);
void tree_destroy_proxy(dynamic_tree* tree, int32_t proxy);
// Moves a leaf to a new box: removed and inserted again, reusing its nodes (no allocation).
void tree_move_proxy(dynamic_tree* tree, int32_t proxy, collide_aabb aabb);

static inline collide_aabb tree_fat_aabb(const dynamic_tree* tree, int32_t proxy)
{
	return tree->nodes[proxy].aabb;
}
static inline int32_t tree_user(const dynamic_tree* tree, int32_t proxy)
{
	return tree->nodes[proxy].user;
}

// Called for each leaf whose box overlaps the query and whose category meets the mask; return false to
// stop.
typedef bool (*tree_query_fn)(void* context, int32_t proxy, int32_t user);
// Visits in a fixed order (depth first, child1 before child2), with no stack: parent links lead back.
void tree_query(const dynamic_tree* tree, collide_aabb aabb, uint64_t mask, tree_query_fn visit, void* context);

// Called for each leaf whose box the ray reaches, with the ray's current end (fraction of the
// translation); returns the new end: smaller to clip, the same to go on, 0 to stop.
typedef double (*tree_ray_fn)(void* context, int32_t proxy, int32_t user, double max_fraction);
void tree_ray_cast(const dynamic_tree* tree, sn_vec3 origin, sn_vec3 translation, double max_fraction, uint64_t mask,
				   tree_ray_fn visit, void* context);

// Height of the root (0 for one leaf, -1 when empty).
int tree_height(const dynamic_tree* tree);
// Sum of the internal nodes' surface areas over the root's: the SAH cost of the tree (for tests and
// benchmarks).
double tree_area_ratio(const dynamic_tree* tree);
// Checks parents, heights, categories, boxes (each contains its children), counts. False with a detail.
bool tree_validate(const dynamic_tree* tree, char* detail, size_t capacity);

#endif
