// Unit test impulses (Mirtich's, as PhysX's mimic-joint notes use them): the response r_ij of dof i's
// speed to a unit impulse on dof j, for every pair of active dofs (those that carry a limit, drive,
// friction or mimic row).
//
// r_ij is column j of M^-1 restricted to the active dofs. A unit impulse on dof j of link L enters the
// recursion of artic/dynamics.c as y = e_j, and only the links on L's path to the root see it:
//   at L:           u = e_j (local),                     z_up = U_L D_L^-1 u
//   at an ancestor: u = -S^T z (z = what its child sent), z_up = z + U D^-1 u
// (the impulse propagated inward to the root, Mirtich's test impulse). At the root the velocity change
// starts: dv_0 = -IA_0^-1 z_0 for a floating base, 0 for a fixed one. It then propagates outward:
//   dqd_i = D_i^-1 (u_i - U_i^T dv_p),  dv_i = dv_p + S_i dqd_i,
// with u_i = 0 on links that are not ancestors of L.
//
// W is symmetric (M^-1 is), so column j is computed only for the active dofs j, j + 1, ... (slots in dof
// order) and mirrored into row j: the outward pass visits only the links that lead to those dofs, about
// half the work of every column. Column j costs O(depth(L) + links on those paths).
//
// Contacts on a floating base's links add the base's velocity (w, v about O) as six slots after the dofs:
// their rows and columns are the base's response to each dof's unit impulse (the root's dv_0 above) and,
// by the symmetry of M^-1, each dof's response to a unit spatial impulse on the base; the base block is
// IA_0^-1.
//
// Across a fixed root the sub-trees do not talk: on the path from the root to dof i in another sub-tree
// dv_p = 0 and u = 0, so dqd_i is exactly 0 (r_ij = 0, as the mimic-joint notes state), and those links are
// not visited. Through a floating root the base moves and r_ij is not zero.
#include "artic/artic.h"

#include "world.h"

#include <string.h>

// needed[] bits: the link is the impulsed link of the column in lane 0 (or 1), or one of its ancestors.
enum
{
	ANCESTOR0 = 2,
	ANCESTOR1 = 4,
};

// Inward from the impulsed joint of active slot j to the root (the file header), writing the joint's u into
// lane `lane` of dw[].y and marking the path; returns z at the root.
static sv6 column_inward(artic* a, int j, int lane, uint8_t mark)
{
	const int dof = a->rows.act_dof[j];
	const int link = a->dof_link[dof];
	sv6 z = sv6_zero();
	for (int i = link; i > 0; i = a->links[i].parent)
	{
		const artic_link* l = a->links + i;
		artic_dof_work* dw = a->dw + l->dof;
		const int nd = l->dof_count;
		for (int d = 0; d < nd; ++d)
		{
			dw[d].y[lane] = (i == link) ? (l->dof + d == dof ? 1.0 : 0.0) : -sv6_dot(dw[d].s, z);
		}
		// z_up = z + U D^-1 u.
		if (nd == 1)
		{
			z = sv6_mul_add(z, dw->dinv[0] * dw->y[lane], dw->u6);
		}
		else
		{
			for (int r = 0; r < nd; ++r)
			{
				double x =
					dw[r].dinv[0] * dw[0].y[lane] + dw[r].dinv[1] * dw[1].y[lane] + dw[r].dinv[2] * dw[2].y[lane];
				z = sv6_mul_add(z, x, dw[r].u6);
			}
		}
		a->needed[i] |= mark;
	}
	return z;
}

static void clear_marks(artic* a, int j, uint8_t mark)
{
	for (int i = a->dof_link[a->rows.act_dof[j]]; i > 0; i = a->links[i].parent)
	{
		a->needed[i] &= (uint8_t)~mark;
	}
}

// Column j of W (and row j, by symmetry) from the velocity changes in lane `lane`.
static void column_store(artic* a, int j, int lane)
{
	artic_rows* rows = &a->rows;
	const int k = rows->k, kd = rows->kd;
	const int lo = rows->span_lo[j], hi = rows->span_hi[j];
	double* column = rows->w + j * k;
	// Across a fixed base the outward pass skipped the other subtrees, whose dofs still hold stale values:
	// their entries are 0. The span says so when each subtree's slots are contiguous; when they interleave,
	// the span is every slot and the subtree decides.
	const int32_t tree = rows->interleaved ? a->subtree[a->dof_link[rows->act_dof[j]]] : -1;
	for (int s = j; s < kd; ++s)
	{
		const int dof = rows->act_dof[s];
		const bool coupled = s >= lo && s < hi && (tree < 0 || a->subtree[a->dof_link[dof]] == tree);
		const double r = coupled ? a->dw[dof].y[lane] : 0.0;
		column[s] = r;
		rows->w[s * k + j] = r;
	}
	if (k > kd)
	{
		// The base's velocity change (base slots, w then v about O), and by symmetry the dof's response
		// to a unit impulse on the base.
		const sv6 dv0 = sv6x2_lane(&a->temp[0].m.zz, lane);
		const double b[ARTIC_BASE_SLOTS] = { dv0.w.x, dv0.w.y, dv0.w.z, dv0.v.x, dv0.v.y, dv0.v.z };
		for (int c = 0; c < ARTIC_BASE_SLOTS; ++c)
		{
			column[kd + c] = b[c];
			rows->w[(kd + c) * k + j] = b[c];
		}
	}
}

// Columns j0 and j1 >= j0 (j1 may be j0) side by side in the two lanes (math/lanes.h): each lane computes
// what the recursion of the file header computes for its column, in the same order. The inward passes
// are walked one by one (their paths differ); the outward pass visits the links either column needs, and
// a lane's values on links only the other column needs are never read for its column.
static void column_pair(artic* a, int j0, int j1)
{
	const int n = a->link_count;
	const int link0 = a->dof_link[a->rows.act_dof[j0]], link1 = a->dof_link[a->rows.act_dof[j1]];
	// A fixed base stops the impulse: links in the base's other subtrees do not move (r_ij = 0).
	const int32_t tree0 = a->fixed_base ? a->subtree[link0] : -1;
	const int32_t tree1 = a->fixed_base ? a->subtree[link1] : -1;
	const sv6 z0 = column_inward(a, j0, 0, ANCESTOR0);
	const sv6 b0 = a->fixed_base ? sv6_zero() : artic_base_response(a, z0);
	sv6 b1 = b0;
	if (j1 != j0)
	{
		const sv6 z1 = column_inward(a, j1, 1, ANCESTOR1);
		b1 = a->fixed_base ? sv6_zero() : artic_base_response(a, z1);
	}
	else
	{
		// One column left: lane 1 repeats lane 0.
		for (int i = link0; i > 0; i = a->links[i].parent)
		{
			const artic_link* l = a->links + i;
			for (int d = 0; d < l->dof_count; ++d)
			{
				a->dw[l->dof + d].y[1] = a->dw[l->dof + d].y[0];
			}
			a->needed[i] |= ANCESTOR1;
		}
	}
	a->temp[0].m.zz = sv6x2_pair(b0, b1);

	// Outward over the links that lead to the active dofs j0, j0 + 1, ...: W is symmetric, so the entries
	// above the diagonal are those the earlier columns found. (reach[i] >= j1 implies reach[i] >= j0.)
	const artic_link* restrict links = a->links;
	artic_link_temp* restrict work = a->temp;
	artic_dof_work* restrict dws = a->dw;
	for (int i = 1; i < n; ++i)
	{
		if (a->reach[i] < j0 || (tree0 >= 0 && a->subtree[i] != tree0 && a->subtree[i] != tree1))
		{
			continue;
		}
		const artic_link* l = links + i;
		artic_dof_work* dw = dws + l->dof;
		const sv6x2 dvp = work[l->parent].m.zz;
		sv6x2 dv = dvp;
		const bool anc0 = (a->needed[i] & ANCESTOR0) != 0, anc1 = (a->needed[i] & ANCESTOR1) != 0;
		if (l->dof_count == 1)
		{
			const lane2 u = lane2_pair(anc0 ? dw->y[0] : 0.0, anc1 ? dw->y[1] : 0.0);
			const lane2 x = lane2_splat(dw->dinv[0]) * (u - sv6x2_dot_splat(dw->u6, &dvp));
			lane2_store(dw->y, x);
			sv6x2_mul_add_splat(&dv, x, dw->s);
		}
		else if (l->dof_count == 3)
		{
			lane2 t[3];
			for (int d = 0; d < 3; ++d)
			{
				const lane2 u = lane2_pair(anc0 ? dw[d].y[0] : 0.0, anc1 ? dw[d].y[1] : 0.0);
				t[d] = u - sv6x2_dot_splat(dw[d].u6, &dvp);
			}
			for (int r = 0; r < 3; ++r)
			{
				lane2 x = lane2_splat(dw[r].dinv[0]) * t[0] + lane2_splat(dw[r].dinv[1]) * t[1];
				x = x + lane2_splat(dw[r].dinv[2]) * t[2];
				lane2_store(dw[r].y, x);
				sv6x2_mul_add_splat(&dv, x, dw[r].s);
			}
		}
		work[i].m.zz = dv;
	}
	column_store(a, j1, 1);
	column_store(a, j0, 0);
	clear_marks(a, j0, ANCESTOR0);
	clear_marks(a, j1, ANCESTOR1);
}

void artic_compute_response(artic* a)
{
	artic_rows* rows = &a->rows;
	const int k = rows->k, kd = rows->kd, n = a->link_count;
	for (int i = 0; i < n; ++i)
	{
		a->reach[i] = -1;
	}
	for (int s = 0; s < kd; ++s)
	{
		for (int i = a->dof_link[rows->act_dof[s]]; i > 0 && a->reach[i] < s; i = a->links[i].parent)
		{
			a->reach[i] = s;
		}
	}
	memset(a->needed, 0, (size_t)n);
	for (int j = 0; j < kd; j += 2)
	{
		column_pair(a, j, j + 1 < kd ? j + 1 : j);
	}
	if (k > kd)
	{
		// Base slots among themselves: a unit spatial impulse on the base alone moves it by IA_0^-1 e_c (the
		// whole tree's articulated inertia at the base: its joints pass no impulse).
		for (int c = 0; c < ARTIC_BASE_SLOTS; ++c)
		{
			double e[ARTIC_BASE_SLOTS] = { 0.0 };
			e[c] = -1.0;
			const sv6 dv0 = artic_base_response(a, sv6_make(sn_v3(e[0], e[1], e[2]), sn_v3(e[3], e[4], e[5])));
			const double b[ARTIC_BASE_SLOTS] = { dv0.w.x, dv0.w.y, dv0.w.z, dv0.v.x, dv0.v.y, dv0.v.z };
			for (int r = 0; r < ARTIC_BASE_SLOTS; ++r)
			{
				rows->w[(kd + c) * k + kd + r] = b[r];
			}
		}
	}
}

sn_error sn_articulation_compute_response(sn_world* world, sn_articulation_id id, int dof_i, int dof_j,
										  double* response)
{
	if (world == NULL)
	{
		return SN_ERR_INVALID_ARGUMENT;
	}
	artic* a = artic_get(world, id);
	if (a == NULL)
	{
		return world_fail(world, SN_ERR_INVALID_ID, "compute response: invalid articulation id");
	}
	if (response == NULL || dof_i < 0 || dof_i >= a->dof_count || dof_j < 0 || dof_j >= a->dof_count)
	{
		return world_fail(world, SN_ERR_INVALID_ARGUMENT, "compute response: dofs %d and %d must be in 0..%d", dof_i,
						  dof_j, a->dof_count - 1);
	}
	// The factorisation a solve of the next step would use, in the world's own step scratch (the state is
	// not touched). The last step's joint forces are computed first, from the work arrays this overwrites
	// (artic_factor does so too, except for an articulation asleep since a step began).
	if (!world_bind_scratch(world, NULL))
	{
		return world_fail(world, SN_ERR_NO_MEMORY, "compute response: could not grow the step's scratch memory");
	}
	artic_incoming_settle(a);
	artic_factor(a, world->def.gravity, world->def.time_step / world->def.substeps);
	for (int d = 0; d < a->dof_count; ++d)
	{
		a->dw[d].y[0] = 0.0;
		a->dw[d].y[1] = 0.0;
	}
	a->dw[dof_j].y[0] = 1.0;
	sv6 base[2];
	artic_impulse_response(a, base);
	*response = a->dw[dof_i].y[0];
	artic_scratch_unbind(world);
	return SN_ERR_OK;
}
