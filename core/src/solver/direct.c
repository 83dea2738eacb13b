// The DIRECT world solver: the compliant system of Faure's SOFA compliant plugin (F. Faure, "Compliant
// plugin", 2012; "the plugin" below, whose equation numbers are used), solved exactly each step.
//
// The system. Every joint row (the rows PGS and TGS use, joint/joint.h) has a Jacobian J_r, a position
// error C_r, a rate Cdot_r = J_r v_n and a compliance. With h the step, alpha and beta the world's implicit
// factors, the free velocities v_f = v_n + h M^-1 f_ext (gravity, applied forces, the implicit
// gyroscopic step and body damping, body.c) and the row impulses P = h lambda (lambda the step's average
// force, the plugin's eq. 13), the end velocities are
//   v_{n+1} = v_f + M^-1 J^T P
// and each row asks J_r v_{n+1} + D_r P_r = t_r:
//   soft row       D and t from constraint/soft.h (the plugin's, with l = alpha (h beta + d)):
//                  D = 1/(h a), t = -(k/a) C + ((alpha h k (beta - 1) + b (alpha - 1))/a) Cdot_n,
//                  a = alpha (h beta k + b); a static load F deflects it by F c at any h, alpha, beta
//   hard row       c = 0: D = 0, t = -erp C / h (the plugin's row at c = 0 with alpha = beta = 1 and
//                  d = h (1 - erp) / erp, so erp means what it means in PGS; erp = 1 is the plugin's
//                  phi_{n+1} = 0 projection)
//   motor          D = 0, t = the target speed (a velocity constraint J v = c, as in Baraff 1996)
//   limit, C > 0   D = 0, t = -C / h (speculative: the gap may close, not cross, within the step)
// Substituting v_{n+1} gives the Schur complement (the plugin's (h J P M^-1 P J^T + C/l) lambda = ...
// multiplied by h, with P = 1 on dynamic bodies and M^-1 = 0 on static and kinematic ones):
//   (J M^-1 J^T + D) P = t - J v_f
// solved by the sparse LDL^T of sparse_ldl.c over the joint graph: a tree (a chain) factorises in time
// linear in its joints with no fill (Baraff 1996), loops with the fill minimum degree leaves. Then
// positions advance by x_{n+1} = x_n + h (v_n + beta (v_{n+1} - v_n)) (the plugin's dx = h (v + beta dv)),
// orientations by the exponential map of the same blend.
//
// Bounds: an active set. Rows with bounds (limits P >= 0, motors and capped springs |P| <= F h) are box
// complementarity conditions: a free row has J v + D P = t inside its bounds; a row at its lower bound
// has J v + D P - t >= 0 (it would rather separate), at its upper bound <= 0. The matrix is symmetric
// positive definite on the free rows, so block principal pivoting converges on it: solve with the free
// rows as equations and the clamped ones fixed at their bound, free every clamped row whose residual has
// the wrong sign, clamp every free row outside its bounds, repeat. A round changes all offending rows at
// once while their number falls, and for three rounds after it last fell; then one row (the lowest
// index, Murty's rule, which cannot cycle on such a matrix) until it falls again (Judice and Pires'
// block principal pivoting with its backup rule). The active set starts from the last step's (a row whose last impulse sat on a bound
// starts clamped; a limit with a gap starts inactive), so a settled scene takes one factorisation.
// After 50 rounds, 8 rounds without a new fewest-offending set, or 200 back-substitutions (whichever
// comes first: a bound on a step's cost when contacts fight rigid rows), the impulses are projected onto
// their bounds and the step goes on (counted in the solver stats): the bounds hold in every case, and
// equality rows are exact whenever the set settles.
//
// Dependent rows. A motor and a limit on the same axis are the same row twice. Within a joint the free
// rows are factorised locks first, then limits, then drives, and the factorisation gives a row that
// repeats earlier ones a zero pivot and no impulse (sparse_ldl.c): a limit holds and a motor pushing
// into it gives way, and the sum of their impulses, which is all the bodies feel and what the joint
// reports, is the same. Loops of joints repeat constraints too (a planar loop of parallel hinges):
// rows repeated exactly drop the same way. Once such a loop has drifted a little its repeated rows are
// only nearly dependent, and rigid forces along them grow like 1 / drift^2 (an over-constrained
// structure is statically indeterminate). On joints that close a loop (the edges of the body graph that
// are not bridges, found when the graph is analysed) a pivot below 1e-4 of its row's diagonal is raised
// to that floor: the row takes a compliance of at most 1e-4 of its own inverse effective mass. Without
// the floor a 20 x 20 sheet of hinge loops diverged within 3 s; with it it runs. Joints on no loop
// (chains, trees) are solved exactly: a chain's smallest pivot is 0.2 of its diagonal, one with 1:1000
// mass ratios 2.6e-4.
//
// Equality rows come out exact to round-off: J v_{n+1} + D P = t holds to ~1e-15 relative for every free
// row of a tree, where PGS and TGS approach it by iterations.
//
// Joint forces are sum_r P_r (lin_r, anchor_torque_r) / dt (force on B, torque on B about its anchor),
// as in PGS/TGS; the last impulse per row is kept as the warm table, which starts the next active set.
// Def fields in DIRECT: every softness as above; erp as above; position_iterations and
// velocity_iterations are unused (the solve is exact); substeps divide the step as for every solver.
//
// Contacts between bodies (and a body and the ground) are rows of the same system: per point a normal
// row bounded below by 0 and two friction rows held inside the Coulomb disk of the normal impulse
// (direct_contacts.c, which derives the friction scheme). They join the graph as a node per pair of
// shapes that may touch (the pair cache and this step's new pairs), so the analysis is redone when pairs
// begin or end, not when contacts do: a pair without points this step is a node of no rows. A sliding
// point's friction is a row held at mu P_n along its slip; its value follows the normal impulse of the
// same solve by a fixed point that reuses the factorisation (only the right-hand side changes). The
// rounds decide the active set on the contacts' regularised rows (positive definite); the settled set is
// then solved again with the regularisation refined away, penetration beyond the slop is removed by a
// split impulse with the same factorisation (push_solve), and every contact ends within its cone.
#include "solver/direct.h"

#include "body.h"
#include "collide/narrowphase.h"
#include "joint/joint.h"
#include "math/mathx.h"
#include "constraint/soft.h"
#include "world.h"

#include <limits.h>
#include <math.h>
#include <string.h>

enum
{
	ACTIVE_SET_PATIENCE = 3,
	// Rounds after which contacts keep sticking or sliding as they are, and only the bounds of rows
	// change (direct_contacts.c).
	ACTIVE_SET_FRICTION_ROUNDS = 20,
	ACTIVE_SET_MAX_ROUNDS = 50,
	// Rounds without a new fewest-offending set after which the step ends unsettled: the set is not
	// converging (rigid rows in conflict), and each further round is a factorisation.
	ACTIVE_SET_STALL_ROUNDS = 8,
	// Back-substitutions per step, at most, before the step ends unsettled: a bound on a step's cost when
	// thousands of contact rows fight (40 overlapping boxes welded in place took 1-2 s per step without it).
	ACTIVE_SET_MAX_SOLVES = 200,
	// Back-substitutions of the sliding friction's fixed point per round, at most.
	SLIDE_MAX_SOLVES = 40,
	MAX_JOINT_ROWS = SN_AXIS_COUNT * SLOTS_PER_AXIS + 1,
	MAX_CONTACT_NODE_ROWS = CONTACT_ROWS * COLLIDE_MANIFOLD_POINTS * COLLIDE_MAX_MANIFOLDS,
	MAX_NODE_ROWS = MAX_JOINT_ROWS > MAX_CONTACT_NODE_ROWS ? MAX_JOINT_ROWS : MAX_CONTACT_NODE_ROWS,
};

// A pivot below this fraction of its row's diagonal is round-off: the row repeats others.
static const double DEPENDENT_PIVOT = 1e-11;
// On joints that close loops, a pivot below this fraction of its row's diagonal (a row nearly
// repeating others) is raised to it (see the header).
static const double LOOP_PIVOT_FLOOR = 1e-4;

// ---- scratch and analysis ----------------------------------------------------------------------------

static bool grow(sn_memory* m, void* array, int* capacity, int needed, size_t size)
{
	void** p = array;
	return memory_reserve(m, p, capacity, needed, size);
}

// Per-node, per-slot and per-row arrays share a capacity each: they grow together or not at all, with
// their contents kept.
static bool grow_all(sn_memory* m, void** arrays[], const size_t* sizes, int count, int* capacity, int needed)
{
	enum
	{
		MAX_ARRAYS = 11
	};
	if (needed <= *capacity)
	{
		return true;
	}
	int cap = *capacity < 8 ? 8 : *capacity; // grown geometrically as memory_reserve does
	while (cap < needed)
	{
		cap = cap > (1 << 29) ? needed : 2 * cap;
	}
	void* fresh[MAX_ARRAYS];
	for (int i = 0; i < count; ++i)
	{
		fresh[i] = memory_alloc(m, (size_t)cap * sizes[i]);
		if (fresh[i] == NULL)
		{
			for (int k = 0; k < i; ++k)
			{
				memory_free(m, fresh[k], (size_t)cap * sizes[k]);
			}
			return false;
		}
	}
	for (int i = 0; i < count; ++i)
	{
		if (*arrays[i] != NULL)
		{
			memcpy(fresh[i], *arrays[i], (size_t)*capacity * sizes[i]);
			memory_free(m, *arrays[i], (size_t)*capacity * sizes[i]);
		}
		*arrays[i] = fresh[i];
	}
	*capacity = cap;
	return true;
}

// The slot arrays and the body index (direct_prepare).
static sn_error reserve_slots(sn_world* world)
{
	direct_state* d = &world->direct;
	sn_memory* m = &world->memory;
	void** slot_arrays[] = { (void**)&d->v0, (void**)&d->w0, (void**)&d->vf, (void**)&d->wf };
	size_t slot_sizes[] = { sizeof(sn_vec3), sizeof(sn_vec3), sizeof(sn_vec3), sizeof(sn_vec3) };
	bool ok = grow_all(m, slot_arrays, slot_sizes, 4, &d->slot_capacity, world->body_high + 1);
	ok = ok && grow(m, &d->body_ptr, &d->body_ptr_capacity, world->body_high + 2, sizeof(int));
	return ok ? SN_ERR_OK : SN_ERR_NO_MEMORY;
}

static sn_error reserve_nodes(sn_world* world, int nodes)
{
	direct_state* d = &world->direct;
	void** node_arrays[] = { (void**)&d->node_joint,     (void**)&d->node_key,       (void**)&d->node_body,
							 (void**)&d->caps,           (void**)&d->adj_ptr,        (void**)&d->mark,
							 (void**)&d->node_row_first, (void**)&d->node_row_count, (void**)&d->dims,
							 (void**)&d->floor };
	size_t node_sizes[] = { sizeof(int), sizeof(uint64_t), 2 * sizeof(int), sizeof(int), sizeof(int),
							sizeof(int), sizeof(int),      sizeof(int),     sizeof(int), sizeof(double) };
	return grow_all(&world->memory, node_arrays, node_sizes, 10, &d->node_capacity, nodes) ? SN_ERR_OK
																						   : SN_ERR_NO_MEMORY;
}

// The row arrays for the joints' rows and `contact_caps` contact rows, and the contact points.
static sn_error reserve_rows(sn_world* world, int contact_caps)
{
	direct_state* d = &world->direct;
	sn_memory* m = &world->memory;
	void** row_arrays[] = { (void**)&d->rows,    (void**)&d->target, (void**)&d->compliance, (void**)&d->refine,
							(void**)&d->impulse, (void**)&d->fixed,  (void**)&d->best_fixed, (void**)&d->x,
							(void**)&d->sys,     (void**)&d->state,  (void**)&d->best_state };
	size_t row_sizes[] = { sizeof(row),
						   sizeof(double),
						   sizeof(double),
						   sizeof(double),
						   sizeof(double),
						   sizeof(double),
						   sizeof(double),
						   sizeof(double),
						   sizeof(int),
						   1,
						   1 };
	bool ok = grow_all(m, row_arrays, row_sizes, 11, &d->row_capacity, world->row_budget + contact_caps + 1);
	void** point_arrays[] = { (void**)&d->points };
	size_t point_sizes[] = { sizeof(direct_point) };
	ok = ok && grow_all(m, point_arrays, point_sizes, 1, &d->point_capacity, contact_caps / CONTACT_ROWS + 1);
	return ok ? SN_ERR_OK : SN_ERR_NO_MEMORY;
}

static bool joint_active(const joint* j)
{
	return j->live && j->enabled && !j->broken && !j->articulated; // the articulations' path has those
}

static int dynamic_slot(const sn_world* world, int32_t index)
{
	return index >= 0 && world->bodies[index].type == SN_BODY_DYNAMIC ? index : -1;
}

// Visit one node of the graph in order: store it (write) or compare it with the analysed one.
static void visit_node(direct_state* d, bool write, int n, int joint_index, uint64_t key, const int bodies[2], int cap,
					   bool* same)
{
	if (write)
	{
		d->node_joint[n] = joint_index;
		d->node_key[n] = key;
		d->node_body[2 * n] = bodies[0];
		d->node_body[2 * n + 1] = bodies[1];
		d->caps[n] = cap;
		return;
	}
	*same = *same && n < d->node_count && d->node_joint[n] == joint_index && d->node_key[n] == key &&
		d->node_body[2 * n] == bodies[0] && d->node_body[2 * n + 1] == bodies[1] && d->caps[n] == cap;
}

// The graph's nodes: the active joints by index, then the pairs of shapes that DIRECT's contacts may
// join this step by key: the cached pairs whose shapes are current and the candidates (both sorted;
// contact_update merges them the same way). Stores them (write) or compares them with the analysed
// graph (*same); returns the count of nodes, *joints the joint nodes and *contact_caps the contact
// nodes' rows at most.
static int walk_nodes(sn_world* world, bool write, bool* same, int* joints, int* contact_caps)
{
	direct_state* d = &world->direct;
	const contact_state* c = &world->contacts;
	int n = 0;
	*contact_caps = 0;
	for (int i = 0; i < world->joint_high; ++i)
	{
		const joint* j = world->joints + i;
		if (joint_active(j))
		{
			int ends[2] = { dynamic_slot(world, j->body_a), dynamic_slot(world, j->body_b) };
			visit_node(d, write, n++, i, 0, ends, j->max_rows, same);
		}
	}
	*joints = n;
	int i = 0, k = 0;
	uint64_t last = UINT64_MAX;
	while (i < c->pair_count || k < c->candidate_count)
	{
		const contact_pair* p = i < c->pair_count ? c->pairs + i : NULL;
		const broadphase_pair* q = k < c->candidate_count ? c->candidates + k : NULL;
		uint64_t pk = p != NULL ? contact_pair_key(p->shape_a, p->shape_b) : UINT64_MAX;
		uint64_t qk = q != NULL ? contact_pair_key(q->user_a, q->user_b) : UINT64_MAX;
		int32_t sa, sb;
		uint64_t key;
		if (p != NULL && pk <= qk)
		{
			i += 1;
			if (!contact_pair_is_current(c->shapes, p))
			{
				continue;
			}
			sa = p->shape_a;
			sb = p->shape_b;
			key = pk;
		}
		else
		{
			k += 1;
			sa = q->user_a;
			sb = q->user_b;
			key = qk;
		}
		int ends[2], cap;
		if (key == last || !direct_contact_node(world, sa, sb, ends, &cap))
		{
			continue;
		}
		last = key;
		visit_node(d, write, n++, -1, key, ends, cap, same);
		*contact_caps += cap;
	}
	if (!write)
	{
		*same = *same && n == d->node_count;
	}
	return n;
}

// Joints that close a loop of bodies (the world and every non-dynamic body count as one ground) get
// the pivot floor; the others are bridges of the body graph (Tarjan's low-link, iterative): trees and
// chains are solved exactly. The loops are those of the joints alone: contact nodes have no floor (their
// rigid rows carry a small compliance instead, direct_contacts.c), and a joint is not floored because a
// contact happens to close a loop through it.
static bool mark_loops(sn_world* world)
{
	direct_state* d = &world->direct;
	sn_memory* m = &world->memory;
	int n = d->joint_nodes;
	for (int node = n; node < d->node_count; ++node)
	{
		d->floor[node] = 0.0;
	}
	int vertices = world->body_high + 1;
	int ground = world->body_high;
	// Scratch kept in the state (grown only with the world): six arrays by vertex and the incidence.
	int stride = vertices + 1;
	if (!grow(m, &d->loop_scratch, &d->loop_scratch_capacity, 6 * stride + 2 * n + 1, sizeof(int)))
	{
		return false;
	}
	memset(d->loop_scratch, 0, (size_t)(6 * stride + 2 * n + 1) * sizeof(int));
	int* vptr = d->loop_scratch;
	int* disc = vptr + stride;
	int* low = disc + stride;
	int* iter = low + stride;
	int* parent = iter + stride;
	int* stack = parent + stride;
	int* edges = stack + stride;
	// Incidence of vertices and joints (CSR).
	for (int e = 0; e < 2 * n; ++e)
	{
		int v = d->node_body[e] >= 0 ? d->node_body[e] : ground;
		vptr[v + 1] += 1;
	}
	for (int v = 0; v < vertices; ++v)
	{
		vptr[v + 1] += vptr[v];
		iter[v] = vptr[v];
		disc[v] = -1;
	}
	for (int e = 0; e < 2 * n; ++e)
	{
		int v = d->node_body[e] >= 0 ? d->node_body[e] : ground;
		edges[iter[v]++] = e / 2;
	}
	for (int node = 0; node < n; ++node)
	{
		d->floor[node] = 0.0;
	}
	int time = 0;
	for (int root = 0; root < vertices; ++root)
	{
		if (disc[root] >= 0)
		{
			continue;
		}
		int top = 0;
		stack[top++] = root;
		disc[root] = low[root] = time++;
		parent[root] = -1;
		iter[root] = vptr[root];
		while (top > 0)
		{
			int v = stack[top - 1];
			if (iter[v] < vptr[v + 1])
			{
				int e = edges[iter[v]++];
				int a = d->node_body[2 * e] >= 0 ? d->node_body[2 * e] : ground;
				int b = d->node_body[2 * e + 1] >= 0 ? d->node_body[2 * e + 1] : ground;
				if (e == parent[v] || a == b)
				{
					continue;
				}
				int w = a == v ? b : a;
				if (disc[w] < 0)
				{
					disc[w] = low[w] = time++;
					parent[w] = e;
					iter[w] = vptr[w];
					stack[top++] = w;
				}
				else if (disc[w] < low[v])
				{
					low[v] = disc[w];
				}
				continue;
			}
			top -= 1;
			int e = parent[v];
			if (e >= 0)
			{
				int a = d->node_body[2 * e] >= 0 ? d->node_body[2 * e] : ground;
				int u = a == v ? (d->node_body[2 * e + 1] >= 0 ? d->node_body[2 * e + 1] : ground) : a;
				if (low[v] < low[u])
				{
					low[u] = low[v];
				}
				// Not a bridge: the joint lies on a loop.
				d->floor[e] = low[v] <= disc[u] ? LOOP_PIVOT_FLOOR : 0.0;
			}
		}
	}
	// A back edge closes a loop too: every non-tree edge is on one.
	for (int node = 0; node < n; ++node)
	{
		int a = d->node_body[2 * node] >= 0 ? d->node_body[2 * node] : ground;
		int b = d->node_body[2 * node + 1] >= 0 ? d->node_body[2 * node + 1] : ground;
		if (a != b && parent[a] != node && parent[b] != node)
		{
			d->floor[node] = LOOP_PIVOT_FLOOR;
		}
	}
	return true;
}

static sn_error analyse(sn_world* world)
{
	direct_state* d = &world->direct;
	sn_memory* m = &world->memory;
	d->analysed = false;
	int joints, caps;
	int n = walk_nodes(world, true, NULL, &joints, &caps);
	d->node_count = n;
	d->joint_nodes = joints;
	d->contact_caps = caps;
	// Nodes at each dynamic body (counting sort by body slot).
	int bodies = world->body_high;
	memset(d->body_ptr, 0, (size_t)(bodies + 2) * sizeof(int));
	for (int i = 0; i < 2 * n; ++i)
	{
		if (d->node_body[i] >= 0)
		{
			d->body_ptr[d->node_body[i] + 2] += 1;
		}
	}
	for (int b = 0; b < bodies; ++b)
	{
		d->body_ptr[b + 2] += d->body_ptr[b + 1];
	}
	if (!grow(m, &d->body_nodes, &d->body_nodes_capacity, d->body_ptr[bodies + 1] + 1, sizeof(int)))
	{
		return SN_ERR_NO_MEMORY;
	}
	for (int i = 0; i < 2 * n; ++i)
	{
		int b = d->node_body[i];
		if (b >= 0)
		{
			d->body_nodes[d->body_ptr[b + 1]++] = i / 2;
		}
	}
	// Adjacency: the other nodes at each of a node's bodies, once each.
	for (int pass = 0; pass < 2; ++pass)
	{
		int count = 0;
		for (int v = 0; v < n; ++v)
		{
			d->mark[v] = -1;
		}
		for (int v = 0; v < n; ++v)
		{
			if (pass == 1)
			{
				d->adj_ptr[v] = count;
			}
			d->mark[v] = v;
			for (int side = 0; side < 2; ++side)
			{
				int b = d->node_body[2 * v + side];
				if (b < 0)
				{
					continue;
				}
				for (int e = d->body_ptr[b]; e < d->body_ptr[b + 1]; ++e)
				{
					int u = d->body_nodes[e];
					if (d->mark[u] != v)
					{
						d->mark[u] = v;
						if (pass == 1)
						{
							d->adj[count] = u;
						}
						count += 1;
					}
				}
			}
		}
		if (pass == 0 && !grow(m, &d->adj, &d->adj_capacity, count + 1, sizeof(int)))
		{
			return SN_ERR_NO_MEMORY;
		}
		if (pass == 1)
		{
			d->adj_ptr[n] = count;
		}
	}
	if (!mark_loops(world) || !sparse_ldl_analyse(&d->ldl, m, n, d->adj_ptr, d->adj, d->caps))
	{
		return SN_ERR_NO_MEMORY;
	}
	d->analysed = true;
	d->analyses += 1;
	return SN_ERR_OK;
}

sn_error direct_prepare(sn_world* world)
{
	return reserve_slots(world);
}

sn_error direct_prepare_graph(sn_world* world)
{
	direct_state* d = &world->direct;
	const contact_state* c = &world->contacts;
	sn_error err = reserve_nodes(world, world->joint_high + c->pair_count + c->candidate_count + 1);
	if (err != SN_ERR_OK)
	{
		return err;
	}
	bool same = d->analysed;
	int joints, caps;
	walk_nodes(world, false, &same, &joints, &caps);
	if (!same)
	{
		err = reserve_rows(world, caps);
		err = err == SN_ERR_OK ? analyse(world) : err;
	}
	return err == SN_ERR_OK ? reserve_rows(world, d->contact_caps) : err;
}

void direct_release(sn_world* world)
{
	direct_state* d = &world->direct;
	sn_memory* m = &world->memory;
	sparse_ldl_release(&d->ldl, m);
	memory_free(m, d->node_joint, (size_t)d->node_capacity * sizeof(int));
	memory_free(m, d->node_key, (size_t)d->node_capacity * sizeof(uint64_t));
	memory_free(m, d->node_body, (size_t)d->node_capacity * 2 * sizeof(int));
	memory_free(m, d->caps, (size_t)d->node_capacity * sizeof(int));
	memory_free(m, d->adj_ptr, (size_t)d->node_capacity * sizeof(int));
	memory_free(m, d->mark, (size_t)d->node_capacity * sizeof(int));
	memory_free(m, d->node_row_first, (size_t)d->node_capacity * sizeof(int));
	memory_free(m, d->node_row_count, (size_t)d->node_capacity * sizeof(int));
	memory_free(m, d->dims, (size_t)d->node_capacity * sizeof(int));
	memory_free(m, d->floor, (size_t)d->node_capacity * sizeof(double));
	memory_free(m, d->adj, (size_t)d->adj_capacity * sizeof(int));
	memory_free(m, d->body_ptr, (size_t)d->body_ptr_capacity * sizeof(int));
	memory_free(m, d->body_nodes, (size_t)d->body_nodes_capacity * sizeof(int));
	memory_free(m, d->loop_scratch, (size_t)d->loop_scratch_capacity * sizeof(int));
	memory_free(m, d->v0, (size_t)d->slot_capacity * sizeof(sn_vec3));
	memory_free(m, d->w0, (size_t)d->slot_capacity * sizeof(sn_vec3));
	memory_free(m, d->vf, (size_t)d->slot_capacity * sizeof(sn_vec3));
	memory_free(m, d->wf, (size_t)d->slot_capacity * sizeof(sn_vec3));
	memory_free(m, d->rows, (size_t)d->row_capacity * sizeof(row));
	memory_free(m, d->fixed, (size_t)d->row_capacity * sizeof(double));
	memory_free(m, d->refine, (size_t)d->row_capacity * sizeof(double));
	memory_free(m, d->target, (size_t)d->row_capacity * sizeof(double));
	memory_free(m, d->compliance, (size_t)d->row_capacity * sizeof(double));
	memory_free(m, d->impulse, (size_t)d->row_capacity * sizeof(double));
	memory_free(m, d->x, (size_t)d->row_capacity * sizeof(double));
	memory_free(m, d->sys, (size_t)d->row_capacity * sizeof(int));
	memory_free(m, d->state, (size_t)d->row_capacity);
	memory_free(m, d->best_state, (size_t)d->row_capacity);
	memory_free(m, d->best_fixed, (size_t)d->row_capacity * sizeof(double));
	memory_free(m, d->points, (size_t)d->point_capacity * sizeof(direct_point));
	memset(d, 0, sizeof(*d));
}

// ---- the step ----------------------------------------------------------------------------------------

// J_r^X M_X^-1 J_s^X^T for body X on side `r_on_b` of row r and `s_on_b` of row s.
static double side_coupling(const row* r, bool r_on_b, const row* s, bool s_on_b)
{
	sn_vec3 jl = r_on_b ? r->lin : sn_neg(r->lin);
	sn_vec3 ja = r_on_b ? r->ang_b : r->ang_a;
	double ms = s_on_b ? s->mb : -s->ma;
	sn_vec3 mw = s_on_b ? s->ib : s->ia;
	return ms * sn_dot(jl, s->lin) + sn_dot(ja, mw);
}

// The part of A_rs = J_r M^-1 J_s^T that goes through solver slot `slot`.
static double coupling_at(const row* r, const row* s, int slot)
{
	double v = 0.0;
	for (int rs = 0; rs < 2; ++rs)
	{
		if ((rs ? r->b : r->a) != slot)
		{
			continue;
		}
		for (int ss = 0; ss < 2; ++ss)
		{
			if ((ss ? s->b : s->a) == slot)
			{
				v += side_coupling(r, rs == 1, s, ss == 1);
			}
		}
	}
	return v;
}

static void build_rows(sn_world* world, double h)
{
	direct_state* d = &world->direct;
	row_builder b;
	b.world = NULL; // joints on articulation links are solved in the articulations' pass
	b.links = false;
	b.rows = d->rows;
	b.count = 0;
	b.blocks = world->blocks;
	b.block_count = 0;
	// The exact solve couples a joint's rows itself; a projected row would aim its target at
	// J v + sum alpha_j J_j v instead of J v (builder_project_free_rows).
	b.project_free_rows = false;
	b.h = h;
	b.rigid_bias_rate = world->def.erp / h;
	for (int node = 0; node < d->joint_nodes; ++node)
	{
		int i = d->node_joint[node];
		const joint* j = world->joints + i;
		joint_frame f;
		joint_frame_compute(world, j, &f);
		builder_begin_joint(world, &b, i);
		d->node_row_first[node] = b.count;
		joint_build_rows(world, j, &f, &b);
		d->node_row_count[node] = b.count - d->node_row_first[node];
	}
	world->row_count = b.count;
	world->block_count = b.block_count;
	d->row_count = b.count;
}

// Each joint row's target t and compliance D (see the header), and where the active set starts.
static void setup_rows(sn_world* world, double h)
{
	direct_state* d = &world->direct;
	const sn_world_def* def = &world->def;
	for (int i = 0; i < world->row_count; ++i)
	{
		row* r = d->rows + i;
		double c = r->c0;
		double cdot = direct_row_rate(r, d->v0, d->w0);
		d->compliance[i] = 0.0;
		d->refine[i] = 0.0;
		d->impulse[i] = 0.0;
		d->fixed[i] = 0.0;
		d->state[i] = ROW_FREE;
		if (r->flags & ROW_VELOCITY)
		{
			d->target[i] = r->target_speed;
		}
		else if ((r->flags & ROW_UNILATERAL) && c > 0.0)
		{
			d->target[i] = -c / h;
		}
		else if (r->flags & ROW_SOFT)
		{
			soft_direct sd;
			if (soft_direct_for(r->soft, r->k, h, def->implicit_alpha, def->implicit_beta, &sd))
			{
				d->compliance[i] = sd.compliance;
				d->target[i] = sd.phi_coef * c + sd.phidot_coef * cdot;
			}
			else
			{
				d->target[i] = 0.0;
				d->state[i] = ROW_PINNED;
			}
		}
		else
		{
			d->target[i] = -def->erp * c / h + r->target_speed;
		}
		if (d->state[i] == ROW_PINNED)
		{
			continue;
		}
		// The last step's impulse (the warm table, clamped to this step's bounds by the builder) tells
		// which bound a row sat on; a limit with a gap and no impulse starts inactive.
		if ((r->flags & ROW_UNILATERAL) && c > 0.0 && r->impulse == 0.0)
		{
			d->state[i] = ROW_AT_LO;
		}
		else if (isfinite(r->hi) && r->impulse >= r->hi && !(r->flags & ROW_UNILATERAL))
		{
			d->state[i] = ROW_AT_HI;
		}
		else if (isfinite(r->lo) && r->impulse <= r->lo && !(r->flags & ROW_UNILATERAL))
		{
			d->state[i] = ROW_AT_LO;
		}
	}
}

// The order of a joint's rows in the factorisation: 0 locks, 1 limits, 2 drives (springs, motors).
static int row_class(const row* r)
{
	int within_axis = r->slot % SLOTS_PER_AXIS;
	if (r->slot == SLOT_CONE || within_axis == SLOT_LOWER || within_axis == SLOT_UPPER)
	{
		return 1;
	}
	if (within_axis == SLOT_MOTOR || ((r->flags & ROW_SOFT) != 0) || isfinite(r->lo) || isfinite(r->hi))
	{
		return 2;
	}
	return 0;
}

static double clamped_value(const direct_state* d, int i)
{
	const row* r = d->rows + i;
	switch (d->state[i])
	{
		case ROW_AT_LO:
			return r->lo;
		case ROW_AT_HI:
			return r->hi;
		case ROW_SLIDING:
			return d->fixed[i];
		default:
			return 0.0;
	}
}

// Lay out and assemble (J M^-1 J^T + D) over the free rows.
static void assemble(sn_world* world)
{
	direct_state* d = &world->direct;
	sparse_ldl* s = &d->ldl;
	const row* rows = d->rows;
	double blk[MAX_NODE_ROWS * MAX_NODE_ROWS];
	// Within a joint the free rows go locks first, then limits, then drives: rows on one axis repeat
	// each other (a motor and a limit), and the factorisation keeps the earlier of two dependent rows
	// and gives the later none (sparse_ldl.c), so a limit holds and a motor pushing into it gives way.
	// A contact node's rows go in their order (none of them drops: direct_contacts.c).
	for (int node = 0; node < d->node_count; ++node)
	{
		int m = 0;
		int first = d->node_row_first[node], last = first + d->node_row_count[node];
		for (int pass = 0; pass < 3; ++pass)
		{
			for (int i = first; i < last; ++i)
			{
				if (node >= d->joint_nodes ? pass == 0 : row_class(rows + i) == pass)
				{
					d->sys[i] = d->state[i] == ROW_FREE ? m++ : -1;
				}
			}
		}
		d->dims[node] = m;
	}
	sparse_ldl_begin(s, d->dims);
	for (int node = 0; node < d->node_count; ++node)
	{
		int m = d->dims[node];
		if (m == 0)
		{
			continue;
		}
		int first = d->node_row_first[node], count = d->node_row_count[node];
		for (int i = first; i < first + count; ++i)
		{
			if (d->sys[i] < 0)
			{
				continue;
			}
			for (int k = first; k < first + count; ++k)
			{
				if (d->sys[k] >= 0)
				{
					double v = i == k ? rows[i].k + d->compliance[i] : row_coupling(rows + i, rows + k);
					blk[d->sys[i] * m + d->sys[k]] = v;
				}
			}
		}
		sparse_ldl_add(s, node, node, blk);
	}
	// Nodes sharing a dynamic body couple through it.
	for (int b = 0; b < world->body_high; ++b)
	{
		int e0 = d->body_ptr[b], e1 = d->body_ptr[b + 1];
		if (e1 - e0 < 2)
		{
			continue;
		}
		int slot = world->bodies[b].solver_index;
		for (int ep = e0; ep < e1; ++ep)
		{
			int p = d->body_nodes[ep];
			int mp = d->dims[p];
			for (int eq = ep + 1; eq < e1 && mp > 0; ++eq)
			{
				int q = d->body_nodes[eq];
				int mq = d->dims[q];
				if (mq == 0)
				{
					continue;
				}
				int fp = d->node_row_first[p], fq = d->node_row_first[q];
				for (int i = fp; i < fp + d->node_row_count[p]; ++i)
				{
					if (d->sys[i] < 0)
					{
						continue;
					}
					for (int k = fq; k < fq + d->node_row_count[q]; ++k)
					{
						if (d->sys[k] >= 0)
						{
							blk[d->sys[i] * mq + d->sys[k]] = coupling_at(rows + i, rows + k, slot);
						}
					}
				}
				sparse_ldl_add(s, p, q, blk);
			}
		}
	}
	// System indices from local to global.
	for (int node = 0; node < d->node_count; ++node)
	{
		for (int i = d->node_row_first[node]; i < d->node_row_first[node] + d->node_row_count[node]; ++i)
		{
			if (d->sys[i] >= 0)
			{
				d->sys[i] += s->row_off[node];
			}
		}
	}
}

static void reset_velocities(sn_world* world)
{
	const direct_state* d = &world->direct;
	for (int i = 0; i < world->solver_count; ++i)
	{
		world->solver_bodies[i].v = d->vf[i];
		world->solver_bodies[i].w = d->wf[i];
	}
}

// The system of the free rows, assembled and factorised for the current active set.
static void factorise(sn_world* world)
{
	direct_state* d = &world->direct;
	assemble(world);
	d->last_dependent = sparse_ldl_factor(&d->ldl, DEPENDENT_PIVOT, d->floor);
}

// The largest impulse, N*s (with a floor that keeps tolerances above zero).
static double impulse_scale(const direct_state* d)
{
	double scale_p = 1e-288;
	for (int i = 0; i < d->row_count; ++i)
	{
		scale_p = fmax(scale_p, fabs(d->impulse[i]));
	}
	return scale_p;
}

// One solve with the current factorisation: clamped rows at their bounds (sliding friction at its
// impulse), free rows solved exactly. Leaves the velocities in the solver bodies and the impulses in
// d->impulse. The part D_r of a row's compliance that only regularises it (direct_contacts.c) can be
// taken back by iterative refinement (the proximal point method): the right-hand side gets D_r P_c, P_c
// a centre; solves that move the centre to the last impulses (SOLVE_REFINE) converge to
// J v + (D - D_r) P = t while the matrix keeps A + D. Returns the largest speed D_r |P - P_c| (D_r |P|
// without a centre) the regularisation still gives a free row, m/s.
enum
{
	SOLVE_PLAIN = 0,  // the regularised system as it is
	SOLVE_REFINE = 1, // the centre moves to the last impulses
	SOLVE_HOLD = 2,   // the centre stays where the last refining solve put it
};

static double solve(sn_world* world, int mode)
{
	direct_state* d = &world->direct;
	solver_body* sb = world->solver_bodies;
	reset_velocities(world);
	for (int i = 0; i < d->row_count; ++i)
	{
		if (d->state[i] != ROW_FREE)
		{
			d->impulse[i] = clamped_value(d, i);
			if (d->impulse[i] != 0.0)
			{
				row_apply(d->rows + i, sb, d->impulse[i]);
			}
		}
	}
	for (int i = 0; i < d->row_count; ++i)
	{
		if (d->sys[i] >= 0)
		{
			if (mode == SOLVE_REFINE)
			{
				d->fixed[i] = d->impulse[i]; // a free row's fixed impulse is its centre
			}
			double proximal = mode == SOLVE_PLAIN ? 0.0 : d->refine[i] * d->fixed[i];
			d->x[d->sys[i]] = d->target[i] - row_cdot(d->rows + i, sb) + proximal;
		}
	}
	sparse_ldl_solve(&d->ldl, d->x);
	double residual = 0.0;
	for (int i = 0; i < d->row_count; ++i)
	{
		if (d->sys[i] >= 0)
		{
			double p = d->x[d->sys[i]];
			residual = fmax(residual, d->refine[i] * fabs(mode == SOLVE_PLAIN ? p : p - d->fixed[i]));
			d->impulse[i] = p;
			row_apply(d->rows + i, sb, p);
		}
	}
	d->creep = residual;
	d->last_solves += 1;
	return residual;
}

// Solves with the current factorisation until the sliding friction follows the normal impulses and slip
// of the solve (direct_contacts_slide), and with `refine` until the regularisation is taken back too. A
// refinement residual that stops shrinking is round-off, or regularised rows that disagree (targets no
// rigid motion meets, as a speculative corner beside touching ones): moving the centre again would
// only grow the impulses that fight over it, so it stays where it is (the sliding friction may still
// need solves). Returns the solves.
static int solve_settled(sn_world* world, bool refine, double tol_v, double tol_refine)
{
	direct_state* d = &world->direct;
	int mode = refine ? SOLVE_REFINE : SOLVE_PLAIN;
	double residual = solve(world, mode);
	int solves = 1;
	while (solves < SLIDE_MAX_SOLVES)
	{
		bool slid = direct_contacts_slide(world, tol_v, impulse_scale(d));
		if (mode == SOLVE_REFINE && !(residual > tol_refine))
		{
			mode = SOLVE_HOLD;
		}
		if (!slid && mode != SOLVE_REFINE)
		{
			return solves;
		}
		double last = residual;
		residual = solve(world, mode);
		solves += 1;
		if (mode == SOLVE_REFINE && residual > 0.9 * last)
		{
			mode = SOLVE_HOLD;
		}
	}
	d->slide_unconverged += 1;
	return solves;
}

// Flip the rows that break their conditions, at most `limit` of them (the first in row order). Returns
// the number of offending rows (a contact point whose friction changes state counts once).
static int update_active_set(sn_world* world, int limit, bool frozen, double tol_v, double scale_p)
{
	const double tol_p = 1e-12 * scale_p;
	direct_state* d = &world->direct;
	int offending = 0;
	for (int i = 0; i < d->row_count; ++i)
	{
		const row* r = d->rows + i;
		if (i >= d->contact_row_first && (i - d->contact_row_first) % CONTACT_ROWS != 0)
		{
			continue; // friction (direct_contacts_update)
		}
		uint8_t next = d->state[i];
		double p = d->impulse[i];
		switch (d->state[i])
		{
			case ROW_FREE:
			{
				double tol = i >= d->contact_row_first ? DIRECT_CONTACT_ROUNDING * scale_p : tol_p;
				next = p < r->lo - tol ? ROW_AT_LO : (p > r->hi + tol ? ROW_AT_HI : ROW_FREE);
				break;
			}
			case ROW_AT_LO:
			case ROW_AT_HI:
			{
				double w = row_cdot(r, world->solver_bodies) + d->compliance[i] * p - d->target[i];
				bool wrong = d->state[i] == ROW_AT_LO ? w < -tol_v : w > tol_v;
				next = wrong ? ROW_FREE : d->state[i];
				break;
			}
			default:
				break;
		}
		if (next != d->state[i])
		{
			offending += 1;
			if (offending <= limit)
			{
				d->state[i] = next;
			}
		}
	}
	direct_contacts_update(world, limit, frozen, tol_v, scale_p, &offending);
	return offending;
}

// The velocities from the free update and every row's impulse.
static void apply_impulses(sn_world* world)
{
	direct_state* d = &world->direct;
	reset_velocities(world);
	for (int i = 0; i < d->row_count; ++i)
	{
		if (d->impulse[i] != 0.0)
		{
			row_apply(d->rows + i, world->solver_bodies, d->impulse[i]);
		}
	}
}

// Every impulse within its row's bounds. Returns whether one moved.
static bool clamp_impulses(sn_world* world)
{
	direct_state* d = &world->direct;
	bool moved = false;
	for (int i = 0; i < d->row_count; ++i)
	{
		const row* r = d->rows + i;
		double p = d->impulse[i];
		double q = p < r->lo ? r->lo : (p > r->hi ? r->hi : p);
		moved = moved || q != p;
		d->impulse[i] = q;
	}
	return moved;
}

// Penetration beyond the slop is removed by a split impulse (Catto 2006, as PGS and TGS do): pseudo
// impulses Q with (A + D) Q = b, b the free normal rows' correction speeds and 0 for every other free
// row (joints and sticking friction hold, other contacts keep their depth), solved with the step's
// factorisation, move the bodies by pseudo velocities in this step only. They are not forces: a
// correction adds no kinetic energy, and one that joints prevent (a body jointed in place inside
// another) pushes against them without breaking them or setting anything spinning.
static void push_solve(sn_world* world)
{
	direct_state* d = &world->direct;
	if (d->contact_row_first == d->row_count)
	{
		return;
	}
	memset(d->x, 0, (size_t)d->ldl.size * sizeof(double));
	if (!direct_contacts_push_targets(world, d->x))
	{
		return;
	}
	sparse_ldl_solve(&d->ldl, d->x);
	for (int i = 0; i < d->row_count; ++i)
	{
		if (d->sys[i] >= 0 && d->x[d->sys[i]] != 0.0)
		{
			row_apply_push(d->rows + i, world->solver_bodies, d->x[d->sys[i]]);
		}
	}
}

static void free_update(sn_world* world, double h)
{
	direct_state* d = &world->direct;
	d->v0[0] = d->w0[0] = d->vf[0] = d->wf[0] = sn_v3(0, 0, 0);
	for (int i = 1; i < world->solver_count; ++i)
	{
		const body* b = world->bodies + world->solver_infos[i].body;
		solver_body* s = world->solver_bodies + i;
		d->v0[i] = s->v;
		d->w0[i] = s->w;
		if (b->type == SN_BODY_DYNAMIC)
		{
			body_integrate_velocity(b, world->def.gravity, h, &s->v, &s->w);
		}
		d->vf[i] = s->v;
		d->wf[i] = s->w;
	}
}

static void advance(sn_world* world, double h)
{
	const direct_state* d = &world->direct;
	double beta = world->def.implicit_beta;
	for (int i = 1; i < world->solver_count; ++i)
	{
		body* b = world->bodies + world->solver_infos[i].body;
		const solver_body* s = world->solver_bodies + i;
		sn_vec3 v = s->v, w = s->w;
		if (b->type == SN_BODY_DYNAMIC)
		{
			v = sn_add(d->v0[i], sn_scale(beta, sn_sub(s->v, d->v0[i])));
			w = sn_add(d->w0[i], sn_scale(beta, sn_sub(s->w, d->w0[i])));
			b->v = s->v;
			b->w = s->w;
		}
		b->com = sn_mul_add(b->com, h, sn_add(v, s->vp));
		b->q = quat_integrate(b->q, sn_add(w, s->wp), h);
	}
}

static void report(sn_world* world, double h)
{
	direct_state* d = &world->direct;
	for (int node = 0; node < d->joint_nodes; ++node)
	{
		memset(world->joints[d->node_joint[node]].warm, 0, sizeof(world->joints[0].warm));
	}
	double inv_h = 1.0 / h;
	for (int i = 0; i < world->row_count; ++i)
	{
		const row* r = d->rows + i;
		joint* j = world->joints + r->joint;
		double p = d->impulse[i];
		j->warm[r->slot] = p * inv_h;
		j->force = sn_mul_add(j->force, p, r->lin);
		j->torque = sn_mul_add(j->torque, p, r->anchor_torque);
	}
	direct_contacts_store(world, h);
}

void direct_substep(sn_world* world, double h)
{
	direct_state* d = &world->direct;
	body_prepare_solver_slots(world);
	free_update(world, h);
	build_rows(world, h);
	setup_rows(world, h);
	direct_contacts_build(world, h);
	double scale_v = 0.0;
	for (int i = 0; i < d->row_count; ++i)
	{
		scale_v = fmax(scale_v, fabs(d->target[i]) + fabs(direct_row_rate(d->rows + i, d->vf, d->wf)));
	}
	double tol_v = 1e-12 * scale_v + 1e-15; // round-off of the solve, with a floor of 1e-15 m/s
	// What the regularisation may leave (refinement's round-off grows with the contact rows' condition).
	double tol_refine = 1e-9 * scale_v + 1e-15;
	int round = 0, best = INT_MAX, patience = ACTIVE_SET_PATIENCE;
	bool settled = false, refactor = true;
	d->last_solves = 0;
	int best_round = 0;
	while (!settled && round < ACTIVE_SET_MAX_ROUNDS && round - best_round < ACTIVE_SET_STALL_ROUNDS &&
		   d->last_solves < ACTIVE_SET_MAX_SOLVES)
	{
		if (refactor)
		{
			factorise(world);
		}
		// The rounds decide the active set on the regularised system, which is positive definite.
		solve_settled(world, false, tol_v, tol_refine);
		round += 1;
		double scale_p = impulse_scale(d);
		// Block principal pivoting with Murty's rule as its backup (Judice and Pires, "A block principal
		// pivoting algorithm for large-scale strictly monotone linear complementarity problems", 1994):
		// every offending row flips while their number falls (or for a few rounds more), else only the
		// first, which cannot cycle on a positive definite matrix.
		bool frozen = round > ACTIVE_SET_FRICTION_ROUNDS;
		int offending = update_active_set(world, 0, frozen, tol_v, scale_p);
		// Contacts that fight rigid rows yield (direct_contacts_conflicts) before the bounds are judged: a
		// regularisation that takes more than 1e-3 of the step's speeds is a thousand times what it takes
		// from rows that do not fight (1e-6 of the speed their impulse makes).
		if (direct_contacts_conflicts(world, 1e-3 * scale_v) > 0)
		{
			refactor = true;
			continue;
		}
		if (offending > 0)
		{
			int limit = 1;
			if (offending < best)
			{
				// The nearest the rounds came: an unsettled step ends from it.
				memcpy(d->best_state, d->state, (size_t)d->row_count);
				memcpy(d->best_fixed, d->fixed, (size_t)d->row_count * sizeof(double));
				best = offending;
				best_round = round;
				patience = ACTIVE_SET_PATIENCE;
				limit = INT_MAX;
			}
			else if (patience > 0)
			{
				patience -= 1;
				limit = INT_MAX;
			}
			update_active_set(world, limit, frozen, tol_v, scale_p);
		}
		refactor = offending > 0;
		settled = offending == 0 && direct_contacts_restitution(world, scale_p, &refactor) == 0;
	}
	// The settled set's solution with the contacts' regularisation taken back (their rows exact).
	if (settled && d->contact_row_first < d->row_count)
	{
		solve_settled(world, true, tol_v, tol_refine);
	}
	if (!settled && best < INT_MAX)
	{
		// The rounds did not settle (rigid rows in conflict, friction states that chase each other): the
		// set of the round with the fewest offending rows, with every contact compliant for the step
		// (D = K: it yields like its own effective mass, so what it exerts stays bounded) and without
		// friction, solved, then held to its bounds below. Counted as an unsettled step.
		memcpy(d->state, d->best_state, (size_t)d->row_count);
		memcpy(d->fixed, d->best_fixed, (size_t)d->row_count * sizeof(double));
		for (int i = d->contact_row_first; i < d->row_count; ++i)
		{
			if ((i - d->contact_row_first) % CONTACT_ROWS == 0)
			{
				d->compliance[i] = fmax(d->compliance[i], d->rows[i].k);
			}
			else
			{
				d->state[i] = ROW_PINNED;
			}
		}
		factorise(world);
		solve(world, SOLVE_PLAIN);
	}
	d->unconverged += settled ? 0u : 1u;
	// The bounds hold whatever happened: an unsettled step puts every row within its bounds, and every
	// contact ends within its cone exactly.
	bool moved = !settled && clamp_impulses(world);
	moved = direct_contacts_project(world) || moved;
	if (moved)
	{
		apply_impulses(world);
	}
	d->last_iterations = round;
	push_solve(world);
	advance(world, h);
	report(world, h);
}
