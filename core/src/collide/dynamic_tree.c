// Dynamic AABB tree (after Box2D v3's b2DynamicTree and its GDC 2019 talk, "Dynamic Bounding Volume
// Hierarchies"; Bittner et al., "Fast Insertion-Based Optimization of Bounding Volume Hierarchies", 2013).
//
// A binary tree whose leaves are proxies (a shape's fattened box) and whose internal nodes hold the union
// of their children. Nodes live in one array and name each other by index, so the array may grow (and
// move) and a proxy id stays valid; freed nodes form a list through their parent field.
//
// Insertion (surface-area heuristic). The cost of a tree is the sum of its internal nodes' surface areas
// (the chance a random query enters a node is proportional to its area). Inserting leaf D as the sibling
// of node S creates a parent of area A(S u D) and grows every ancestor of S to include D, so
//   cost(S) = A(S u D) + sum over ancestors P of S of [A(P u D) - A(P)].
// The best sibling is found by branch and bound from the root: descending into a node whose own
// "inherited" cost plus the least possible direct cost (A(D), or A(child u D) - A(child) + A(D) for an
// internal child) already exceeds the best found cannot help, and the search follows the child of lower
// bound (ties broken by the distance of box centres, as Box2D does).
//
// Rotations. On the way back up after an insertion, each ancestor A with children B and C considers
// swapping B with a child of C (F or G) or C with a child of B (D or E); a swap changes only the area of
// the node that received the swapped child, so the rotation with the largest decrease of that area is
// applied. This keeps the tree shallow under the incremental updates a world makes, without AVL's
// height rule.
//
// Queries walk the tree depth first without a stack: after a subtree, climb through the parent links
// until arriving from a first child, then go to that parent's second child. No recursion and no buffer,
// so no depth a hostile scene could build can overflow anything; the order is fixed by the structure.
#include "collide/dynamic_tree.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

void tree_init(dynamic_tree* tree)
{
	memset(tree, 0, sizeof(*tree));
	tree->root = TREE_NULL;
	tree->free_list = TREE_NULL;
}

void tree_release(dynamic_tree* tree, sn_memory* memory)
{
	memory_free(memory, tree->nodes, (size_t)tree->capacity * sizeof(tree_node));
	tree_init(tree);
}

static bool grow(dynamic_tree* tree, sn_memory* memory, int needed)
{
	if (needed <= tree->capacity)
	{
		return true;
	}
	int old = tree->capacity;
	void* nodes = tree->nodes;
	if (!memory_reserve(memory, &nodes, &tree->capacity, needed, sizeof(tree_node)))
	{
		return false;
	}
	tree->nodes = (tree_node*)nodes;
	// New nodes join the free list (in index order, so allocation is deterministic).
	for (int i = tree->capacity - 1; i >= old; --i)
	{
		tree->nodes[i].flags = 0;
		tree->nodes[i].parent = tree->free_list;
		tree->free_list = i;
	}
	return true;
}

bool tree_reserve(dynamic_tree* tree, sn_memory* memory, int proxies)
{
	int nodes = 2 * (tree->proxy_count + proxies);
	return grow(tree, memory, nodes);
}

static int32_t allocate(dynamic_tree* tree)
{
	int32_t index = tree->free_list;
	tree_node* n = &tree->nodes[index];
	tree->free_list = n->parent;
	memset(n, 0, sizeof(*n));
	n->parent = n->child1 = n->child2 = TREE_NULL;
	n->user = -1;
	n->flags = TREE_ALLOCATED;
	tree->node_count += 1;
	return index;
}

static void release(dynamic_tree* tree, int32_t index)
{
	tree->nodes[index].flags = 0;
	tree->nodes[index].parent = tree->free_list;
	tree->free_list = index;
	tree->node_count -= 1;
}

static bool is_leaf(const tree_node* n)
{
	return n->child1 == TREE_NULL;
}

// The node's box, height and categories from its children.
static void refit(dynamic_tree* tree, int32_t index)
{
	tree_node* n = &tree->nodes[index];
	const tree_node* a = &tree->nodes[n->child1];
	const tree_node* b = &tree->nodes[n->child2];
	n->aabb = aabb_union(a->aabb, b->aabb);
	n->category = a->category | b->category;
	n->height = (int16_t)(1 + (a->height > b->height ? a->height : b->height));
}

static int32_t find_best_sibling(const dynamic_tree* tree, collide_aabb box)
{
	const tree_node* nodes = tree->nodes;
	sn_vec3 centre = aabb_center(box);
	double area_d = aabb_surface_area(box);
	int32_t index = tree->root;
	double area_base = aabb_surface_area(nodes[index].aabb);
	double direct = aabb_surface_area(aabb_union(nodes[index].aabb, box));
	double inherited = 0.0;
	int32_t best = index;
	double best_cost = direct;
	while (!is_leaf(&nodes[index]))
	{
		int32_t c1 = nodes[index].child1, c2 = nodes[index].child2;
		double cost = direct + inherited;
		if (cost < best_cost)
		{
			best = index;
			best_cost = cost;
		}
		inherited += direct - area_base;
		bool leaf1 = is_leaf(&nodes[c1]), leaf2 = is_leaf(&nodes[c2]);
		double lower1 = DBL_MAX, lower2 = DBL_MAX;
		double direct1 = aabb_surface_area(aabb_union(nodes[c1].aabb, box));
		double direct2 = aabb_surface_area(aabb_union(nodes[c2].aabb, box));
		double area1 = 0.0, area2 = 0.0;
		if (leaf1)
		{
			double c = direct1 + inherited;
			if (c < best_cost)
			{
				best = c1;
				best_cost = c;
			}
		}
		else
		{
			area1 = aabb_surface_area(nodes[c1].aabb);
			lower1 = inherited + direct1 + fmin(area_d - area1, 0.0);
		}
		if (leaf2)
		{
			double c = direct2 + inherited;
			if (c < best_cost)
			{
				best = c2;
				best_cost = c;
			}
		}
		else
		{
			area2 = aabb_surface_area(nodes[c2].aabb);
			lower2 = inherited + direct2 + fmin(area_d - area2, 0.0);
		}
		if (leaf1 && leaf2)
		{
			break;
		}
		if (best_cost <= lower1 && best_cost <= lower2)
		{
			break;
		}
		if (lower1 == lower2 && !leaf1)
		{
			// No choice by area (both hold D): the nearer centre.
			lower1 = sn_length_sq(sn_sub(aabb_center(nodes[c1].aabb), centre));
			lower2 = sn_length_sq(sn_sub(aabb_center(nodes[c2].aabb), centre));
		}
		if (lower1 < lower2 && !leaf1)
		{
			index = c1;
			area_base = area1;
			direct = direct1;
		}
		else
		{
			if (leaf2)
			{
				break;
			}
			index = c2;
			area_base = area2;
			direct = direct2;
		}
	}
	return best;
}

// Swaps child `down` of a (its slot 1 or 2) with child `up` (1 or 2) of a's other child c.
static void swap_children(dynamic_tree* tree, int32_t a, int down, int up)
{
	tree_node* na = &tree->nodes[a];
	int32_t b = down == 1 ? na->child1 : na->child2;
	int32_t c = down == 1 ? na->child2 : na->child1;
	tree_node* nc = &tree->nodes[c];
	int32_t g = up == 1 ? nc->child1 : nc->child2;
	if (down == 1)
	{
		na->child1 = g;
	}
	else
	{
		na->child2 = g;
	}
	if (up == 1)
	{
		nc->child1 = b;
	}
	else
	{
		nc->child2 = b;
	}
	tree->nodes[g].parent = a;
	tree->nodes[b].parent = c;
	refit(tree, c);
	refit(tree, a);
}

static void rotate(dynamic_tree* tree, int32_t a)
{
	const tree_node* na = &tree->nodes[a];
	int32_t b = na->child1, c = na->child2;
	const tree_node* nb = &tree->nodes[b];
	const tree_node* nc = &tree->nodes[c];
	int best_down = 0, best_up = 0;
	double best_delta = 0.0;
	if (!is_leaf(nc))
	{
		// B <-> F leaves C = (B, G); B <-> G leaves C = (F, B).
		collide_aabb f = tree->nodes[nc->child1].aabb, g = tree->nodes[nc->child2].aabb;
		double area_c = aabb_surface_area(nc->aabb);
		double bf = aabb_surface_area(aabb_union(nb->aabb, g)) - area_c;
		double bg = aabb_surface_area(aabb_union(nb->aabb, f)) - area_c;
		if (bf < best_delta)
		{
			best_delta = bf;
			best_down = 1;
			best_up = 1;
		}
		if (bg < best_delta)
		{
			best_delta = bg;
			best_down = 1;
			best_up = 2;
		}
	}
	if (!is_leaf(nb))
	{
		collide_aabb d = tree->nodes[nb->child1].aabb, e = tree->nodes[nb->child2].aabb;
		double area_b = aabb_surface_area(nb->aabb);
		double cd = aabb_surface_area(aabb_union(nc->aabb, e)) - area_b;
		double ce = aabb_surface_area(aabb_union(nc->aabb, d)) - area_b;
		if (cd < best_delta)
		{
			best_delta = cd;
			best_down = 2;
			best_up = 1;
		}
		if (ce < best_delta)
		{
			best_delta = ce;
			best_down = 2;
			best_up = 2;
		}
	}
	if (best_down != 0)
	{
		swap_children(tree, a, best_down, best_up);
	}
}

static void insert_leaf(dynamic_tree* tree, int32_t leaf)
{
	if (tree->root == TREE_NULL)
	{
		tree->root = leaf;
		tree->nodes[leaf].parent = TREE_NULL;
		return;
	}
	collide_aabb box = tree->nodes[leaf].aabb;
	int32_t sibling = find_best_sibling(tree, box);
	int32_t old_parent = tree->nodes[sibling].parent;
	int32_t parent = allocate(tree);
	tree_node* np = &tree->nodes[parent];
	np->parent = old_parent;
	np->child1 = sibling;
	np->child2 = leaf;
	if (old_parent != TREE_NULL)
	{
		if (tree->nodes[old_parent].child1 == sibling)
		{
			tree->nodes[old_parent].child1 = parent;
		}
		else
		{
			tree->nodes[old_parent].child2 = parent;
		}
	}
	else
	{
		tree->root = parent;
	}
	tree->nodes[sibling].parent = parent;
	tree->nodes[leaf].parent = parent;
	for (int32_t index = parent; index != TREE_NULL; index = tree->nodes[index].parent)
	{
		refit(tree, index);
		rotate(tree, index);
	}
}

static void remove_leaf(dynamic_tree* tree, int32_t leaf)
{
	if (leaf == tree->root)
	{
		tree->root = TREE_NULL;
		return;
	}
	int32_t parent = tree->nodes[leaf].parent;
	int32_t grand = tree->nodes[parent].parent;
	int32_t sibling = tree->nodes[parent].child1 == leaf ? tree->nodes[parent].child2 : tree->nodes[parent].child1;
	if (grand != TREE_NULL)
	{
		if (tree->nodes[grand].child1 == parent)
		{
			tree->nodes[grand].child1 = sibling;
		}
		else
		{
			tree->nodes[grand].child2 = sibling;
		}
		tree->nodes[sibling].parent = grand;
		release(tree, parent);
		for (int32_t index = grand; index != TREE_NULL; index = tree->nodes[index].parent)
		{
			refit(tree, index);
		}
	}
	else
	{
		tree->root = sibling;
		tree->nodes[sibling].parent = TREE_NULL;
		release(tree, parent);
	}
}

bool tree_create_proxy(dynamic_tree* tree, sn_memory* memory, collide_aabb aabb, uint64_t category, int32_t user,
					   int32_t* out_proxy)
{
	// A leaf and (but for the first) a parent.
	if (!grow(tree, memory, tree->node_count + 2))
	{
		return false;
	}
	int32_t leaf = allocate(tree);
	tree_node* n = &tree->nodes[leaf];
	n->aabb = aabb;
	n->category = category;
	n->user = user;
	n->height = 0;
	insert_leaf(tree, leaf);
	tree->proxy_count += 1;
	*out_proxy = leaf;
	return true;
}

void tree_destroy_proxy(dynamic_tree* tree, int32_t proxy)
{
	remove_leaf(tree, proxy);
	release(tree, proxy);
	tree->proxy_count -= 1;
}

void tree_move_proxy(dynamic_tree* tree, int32_t proxy, collide_aabb aabb)
{
	remove_leaf(tree, proxy);
	tree->nodes[proxy].aabb = aabb;
	insert_leaf(tree, proxy);
}

// The next node of the stackless walk after finishing the subtree at index.
static int32_t next_after(const tree_node* nodes, int32_t index)
{
	for (;;)
	{
		int32_t parent = nodes[index].parent;
		if (parent == TREE_NULL)
		{
			return TREE_NULL;
		}
		if (nodes[parent].child1 == index)
		{
			return nodes[parent].child2;
		}
		index = parent;
	}
}

void tree_query(const dynamic_tree* tree, collide_aabb aabb, uint64_t mask, tree_query_fn visit, void* context)
{
	const tree_node* nodes = tree->nodes;
	int32_t index = tree->root;
	while (index != TREE_NULL)
	{
		const tree_node* n = &nodes[index];
		if ((n->category & mask) != 0 && aabb_overlaps(n->aabb, aabb))
		{
			if (!is_leaf(n))
			{
				index = n->child1;
				continue;
			}
			if (!visit(context, index, n->user))
			{
				return;
			}
		}
		index = next_after(nodes, index);
	}
}

void tree_ray_cast(const dynamic_tree* tree, sn_vec3 origin, sn_vec3 translation, double max_fraction, uint64_t mask,
				   tree_ray_fn visit, void* context)
{
	const tree_node* nodes = tree->nodes;
	sn_vec3 inv = aabb_ray_inverse(translation);
	int32_t index = tree->root;
	while (index != TREE_NULL)
	{
		const tree_node* n = &nodes[index];
		if ((n->category & mask) != 0 && aabb_ray_overlaps(n->aabb, origin, inv, max_fraction))
		{
			if (!is_leaf(n))
			{
				index = n->child1;
				continue;
			}
			max_fraction = visit(context, index, n->user, max_fraction);
			if (max_fraction <= 0.0)
			{
				return;
			}
		}
		index = next_after(nodes, index);
	}
}

int tree_height(const dynamic_tree* tree)
{
	return tree->root == TREE_NULL ? -1 : tree->nodes[tree->root].height;
}

double tree_area_ratio(const dynamic_tree* tree)
{
	if (tree->root == TREE_NULL)
	{
		return 0.0;
	}
	double root = aabb_surface_area(tree->nodes[tree->root].aabb);
	double total = 0.0;
	for (int i = 0; i < tree->capacity; ++i)
	{
		const tree_node* n = &tree->nodes[i];
		if ((n->flags & TREE_ALLOCATED) && !is_leaf(n))
		{
			total += aabb_surface_area(n->aabb);
		}
	}
	return root > 0.0 ? total / root : 0.0;
}

bool tree_validate(const dynamic_tree* tree, char* detail, size_t capacity)
{
	int allocated = 0, leaves = 0;
	for (int i = 0; i < tree->capacity; ++i)
	{
		const tree_node* n = &tree->nodes[i];
		if (!(n->flags & TREE_ALLOCATED))
		{
			continue;
		}
		allocated += 1;
		if (i == tree->root ? n->parent != TREE_NULL : n->parent == TREE_NULL)
		{
			snprintf(detail, capacity, "node %d: parent %d with root %d", i, n->parent, tree->root);
			return false;
		}
		if (n->parent != TREE_NULL && tree->nodes[n->parent].child1 != i && tree->nodes[n->parent].child2 != i)
		{
			snprintf(detail, capacity, "node %d is not a child of its parent %d", i, n->parent);
			return false;
		}
		if (is_leaf(n))
		{
			leaves += 1;
			if (n->height != 0 || n->child2 != TREE_NULL)
			{
				snprintf(detail, capacity, "leaf %d has height %d", i, n->height);
				return false;
			}
			continue;
		}
		const tree_node* a = &tree->nodes[n->child1];
		const tree_node* b = &tree->nodes[n->child2];
		int h = 1 + (a->height > b->height ? a->height : b->height);
		if (n->height != h || n->category != (a->category | b->category) || !aabb_contains(n->aabb, a->aabb) ||
			!aabb_contains(n->aabb, b->aabb))
		{
			snprintf(detail, capacity, "node %d: height, categories or box disagree with its children", i);
			return false;
		}
	}
	if (allocated != tree->node_count || leaves != tree->proxy_count ||
		(tree->proxy_count > 0 && allocated != 2 * leaves - 1))
	{
		snprintf(detail, capacity, "counts: %d nodes (%d recorded), %d leaves (%d proxies)", allocated,
				 tree->node_count, leaves, tree->proxy_count);
		return false;
	}
	return true;
}
