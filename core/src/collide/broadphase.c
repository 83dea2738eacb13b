// Broadphase (Box2D v3's b2BroadPhase, simplified to one thread).
//
// Three trees by body type, because static shapes never pair with each other and are rarely moved:
// keeping them apart leaves the dynamic tree small, and a moved dynamic proxy queries the static tree as
// well. Proxies are fattened by a margin; a shape whose tight box stays inside its fat box does not touch
// its tree at all.
//
// Move buffer: a created or re-inserted proxy is recorded once (its node is flagged), and each update
// queries the trees with every moved proxy's fat box. A pair of two moved proxies would be found twice,
// once from each side; it is kept only from the side with the larger key. Pairs are named by the callers'
// ids (shape indices), smaller first, then sorted and deduplicated, so the output depends only on the
// scene, never on addresses or on the order moves happened in.
//
// Allocation: creating a proxy reserves a node pair in its tree and one slot in the move buffer, so
// moving proxies and querying never allocate; the pair buffer grows only when an update finds more new
// pairs than any update before.
#include "collide/broadphase.h"

#include <stdlib.h>
#include <string.h>

void broadphase_init(broadphase* bp, double margin)
{
	memset(bp, 0, sizeof(*bp));
	for (int t = 0; t < BROADPHASE_TYPE_COUNT; ++t)
	{
		tree_init(&bp->trees[t]);
	}
	bp->margin = margin;
}

void broadphase_release(broadphase* bp, sn_memory* memory)
{
	for (int t = 0; t < BROADPHASE_TYPE_COUNT; ++t)
	{
		tree_release(&bp->trees[t], memory);
	}
	memory_free(memory, bp->moves, (size_t)bp->move_capacity * sizeof(int32_t));
	memory_free(memory, bp->pairs, (size_t)bp->pair_capacity * sizeof(broadphase_pair));
	broadphase_init(bp, bp->margin);
}

static int total_proxies(const broadphase* bp)
{
	return bp->trees[0].proxy_count + bp->trees[1].proxy_count + bp->trees[2].proxy_count;
}

static void buffer_move(broadphase* bp, int32_t key)
{
	tree_node* n = &bp->trees[broadphase_key_type(key)].nodes[broadphase_key_proxy(key)];
	if (n->flags & TREE_MOVED)
	{
		return;
	}
	n->flags |= TREE_MOVED;
	bp->moves[bp->move_count++] = key; // room reserved at creation
}

sn_error broadphase_create_proxy_fat(broadphase* bp, sn_memory* memory, collide_aabb fat, uint64_t category,
									 int32_t user, broadphase_type type, bool moved, int32_t* out_key)
{
	void* moves = bp->moves;
	if (!memory_reserve(memory, &moves, &bp->move_capacity, total_proxies(bp) + 1, sizeof(int32_t)))
	{
		return SN_ERR_NO_MEMORY;
	}
	bp->moves = (int32_t*)moves;
	int32_t proxy;
	if (!tree_create_proxy(&bp->trees[type], memory, fat, category, user, &proxy))
	{
		return SN_ERR_NO_MEMORY;
	}
	int32_t key = broadphase_key(type, proxy);
	if (moved)
	{
		buffer_move(bp, key);
	}
	*out_key = key;
	return SN_ERR_OK;
}

sn_error broadphase_reserve(broadphase* bp, sn_memory* memory, broadphase_type type, int count)
{
	void* moves = bp->moves;
	if (!memory_reserve(memory, &moves, &bp->move_capacity, total_proxies(bp) + count, sizeof(int32_t)))
	{
		return SN_ERR_NO_MEMORY;
	}
	bp->moves = (int32_t*)moves;
	return tree_reserve(&bp->trees[type], memory, count) ? SN_ERR_OK : SN_ERR_NO_MEMORY;
}

sn_error broadphase_create_proxy(broadphase* bp, sn_memory* memory, collide_aabb aabb, uint64_t category, int32_t user,
								 broadphase_type type, int32_t* out_key)
{
	return broadphase_create_proxy_fat(bp, memory, aabb_extend(aabb, bp->margin), category, user, type, true, out_key);
}

void broadphase_destroy_proxy(broadphase* bp, int32_t key)
{
	dynamic_tree* tree = &bp->trees[broadphase_key_type(key)];
	int32_t proxy = broadphase_key_proxy(key);
	if (tree->nodes[proxy].flags & TREE_MOVED)
	{
		// Out of the move buffer, keeping the others' order (the buffer never holds dead keys, so its
		// size stays within the live proxies that creation reserved for).
		int w = 0;
		for (int i = 0; i < bp->move_count; ++i)
		{
			if (bp->moves[i] != key)
			{
				bp->moves[w++] = bp->moves[i];
			}
		}
		bp->move_count = w;
	}
	tree_destroy_proxy(tree, proxy);
}

bool broadphase_move_proxy_by(broadphase* bp, int32_t key, collide_aabb aabb, double margin)
{
	dynamic_tree* tree = &bp->trees[broadphase_key_type(key)];
	int32_t proxy = broadphase_key_proxy(key);
	if (aabb_contains(tree->nodes[proxy].aabb, aabb))
	{
		return false;
	}
	tree_move_proxy(tree, proxy, aabb_extend(aabb, margin));
	buffer_move(bp, key);
	return true;
}

bool broadphase_move_proxy(broadphase* bp, int32_t key, collide_aabb aabb)
{
	return broadphase_move_proxy_by(bp, key, aabb, bp->margin);
}

void broadphase_touch_proxy(broadphase* bp, int32_t key)
{
	buffer_move(bp, key);
}

typedef struct pair_query
{
	broadphase* bp;
	sn_memory* memory;
	broadphase_filter_fn filter;
	void* context;
	int32_t key;  // the moved proxy
	int32_t user; // its caller id
	broadphase_type tree;
	bool failed;
} pair_query;

static bool pair_visit(void* context, int32_t proxy, int32_t user)
{
	pair_query* q = (pair_query*)context;
	int32_t other = broadphase_key(q->tree, proxy);
	if (other == q->key)
	{
		return true;
	}
	// Both moved: report from the larger key only.
	if ((q->bp->trees[q->tree].nodes[proxy].flags & TREE_MOVED) && other > q->key)
	{
		return true;
	}
	int32_t a = q->user < user ? q->user : user;
	int32_t b = q->user < user ? user : q->user;
	if (q->filter != NULL && !q->filter(q->context, a, b))
	{
		return true;
	}
	broadphase* bp = q->bp;
	if (bp->max_pairs > 0 && bp->pair_count >= bp->max_pairs)
	{
		bp->pairs_dropped += 1;
		return true;
	}
	if (bp->pair_count == bp->pair_capacity)
	{
		void* pairs = bp->pairs;
		if (!memory_reserve(q->memory, &pairs, &bp->pair_capacity, bp->pair_count + 1, sizeof(broadphase_pair)))
		{
			q->failed = true;
			return false;
		}
		bp->pairs = (broadphase_pair*)pairs;
	}
	bp->pairs[bp->pair_count].user_a = a;
	bp->pairs[bp->pair_count].user_b = b;
	bp->pair_count += 1;
	return true;
}

static int compare_pairs(const void* x, const void* y)
{
	const broadphase_pair* p = (const broadphase_pair*)x;
	const broadphase_pair* q = (const broadphase_pair*)y;
	if (p->user_a != q->user_a)
	{
		return p->user_a < q->user_a ? -1 : 1;
	}
	if (p->user_b != q->user_b)
	{
		return p->user_b < q->user_b ? -1 : 1;
	}
	return 0;
}

static uint64_t pair_key(const broadphase_pair* p)
{
	return ((uint64_t)(uint32_t)p->user_a << 32) | (uint32_t)p->user_b;
}

// Moves the element at `at` down the max-heap of `count` elements until both children are smaller.
static void sift_down(broadphase_pair* a, int at, int count)
{
	broadphase_pair item = a[at];
	uint64_t key = pair_key(&item);
	for (;;)
	{
		int child = 2 * at + 1;
		if (child >= count)
		{
			break;
		}
		if (child + 1 < count && pair_key(a + child + 1) > pair_key(a + child))
		{
			child += 1;
		}
		if (pair_key(a + child) <= key)
		{
			break;
		}
		a[at] = a[child];
		at = child;
	}
	a[at] = item;
}

void broadphase_sort_pairs(broadphase_pair* pairs, int count)
{
	for (int i = count / 2 - 1; i >= 0; --i)
	{
		sift_down(pairs, i, count);
	}
	for (int end = count - 1; end > 0; --end)
	{
		broadphase_pair top = pairs[0];
		pairs[0] = pairs[end];
		pairs[end] = top;
		sift_down(pairs, 0, end);
	}
}

sn_error broadphase_update_pairs(broadphase* bp, sn_memory* memory, broadphase_filter_fn filter, void* context)
{
	bp->pair_count = 0;
	pair_query q = { bp, memory, filter, context, 0, 0, BROADPHASE_STATIC, false };
	for (int i = 0; i < bp->move_count && !q.failed; ++i)
	{
		int32_t key = bp->moves[i];
		broadphase_type type = broadphase_key_type(key);
		const dynamic_tree* own = &bp->trees[type];
		int32_t proxy = broadphase_key_proxy(key);
		collide_aabb fat = own->nodes[proxy].aabb;
		q.key = key;
		q.user = own->nodes[proxy].user;
		for (int t = 0; t < BROADPHASE_TYPE_COUNT && !q.failed; ++t)
		{
			// Dynamic pairs with everything; static and kinematic only with dynamic.
			if (type != BROADPHASE_DYNAMIC && t != BROADPHASE_DYNAMIC)
			{
				continue;
			}
			q.tree = (broadphase_type)t;
			tree_query(&bp->trees[t], fat, UINT64_MAX, pair_visit, &q);
		}
	}
	if (q.failed)
	{
		bp->pair_count = 0;
		return SN_ERR_NO_MEMORY;
	}
	broadphase_sort_pairs(bp->pairs, bp->pair_count);
	int unique = 0;
	for (int i = 0; i < bp->pair_count; ++i)
	{
		if (unique == 0 || compare_pairs(&bp->pairs[unique - 1], &bp->pairs[i]) != 0)
		{
			bp->pairs[unique++] = bp->pairs[i];
		}
	}
	bp->pair_count = unique;
	for (int i = 0; i < bp->move_count; ++i)
	{
		int32_t key = bp->moves[i];
		bp->trees[broadphase_key_type(key)].nodes[broadphase_key_proxy(key)].flags &= (uint16_t)~TREE_MOVED;
	}
	bp->move_count = 0;
	return SN_ERR_OK;
}

typedef struct keyed_query
{
	tree_query_fn visit;
	tree_ray_fn ray;
	void* context;
	broadphase_type tree;
	bool stop;
} keyed_query;

static bool keyed_visit(void* context, int32_t proxy, int32_t user)
{
	keyed_query* k = (keyed_query*)context;
	if (!k->visit(k->context, broadphase_key(k->tree, proxy), user))
	{
		k->stop = true;
		return false;
	}
	return true;
}

void broadphase_query(const broadphase* bp, collide_aabb aabb, uint64_t mask, tree_query_fn visit, void* context)
{
	keyed_query k = { visit, NULL, context, BROADPHASE_STATIC, false };
	for (int t = 0; t < BROADPHASE_TYPE_COUNT && !k.stop; ++t)
	{
		k.tree = (broadphase_type)t;
		tree_query(&bp->trees[t], aabb, mask, keyed_visit, &k);
	}
}

typedef struct keyed_ray
{
	tree_ray_fn visit;
	void* context;
	broadphase_type tree;
	double end;
} keyed_ray;

static double keyed_ray_visit(void* context, int32_t proxy, int32_t user, double max_fraction)
{
	keyed_ray* k = (keyed_ray*)context;
	k->end = k->visit(k->context, broadphase_key(k->tree, proxy), user, max_fraction);
	return k->end;
}

void broadphase_ray_cast(const broadphase* bp, sn_vec3 origin, sn_vec3 translation, double max_fraction, uint64_t mask,
						 tree_ray_fn visit, void* context)
{
	keyed_ray k = { visit, context, BROADPHASE_STATIC, max_fraction };
	for (int t = 0; t < BROADPHASE_TYPE_COUNT && k.end > 0.0; ++t)
	{
		k.tree = (broadphase_type)t;
		tree_ray_cast(&bp->trees[t], origin, translation, k.end, mask, keyed_ray_visit, &k);
	}
}
