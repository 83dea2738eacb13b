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

enum
{
	ANCESTOR = 2, // the link is the current column's link or one of its ancestors
};

// dqd = D^-1 t for the joint of a link with nd dofs (1 or 3), written into y[0].
static void joint_solve(artic_dof_work* dw, int nd, const double* t, sv6* dv)
{
	for (int r = 0; r < nd; ++r)
	{
		double x = nd == 1 ? dw->dinv[0] * t[0] : dw[r].dinv[0] * t[0] + dw[r].dinv[1] * t[1] + dw[r].dinv[2] * t[2];
		dw[r].y[0] = x;
		*dv = sv6_mul_add(*dv, x, dw[r].s);
	}
}

// z_up = z + U D^-1 u for the joint of a link (u in y[0]).
static sv6 joint_send(const artic_dof_work* dw, int nd, sv6 z)
{
	if (nd == 1)
	{
		return sv6_mul_add(z, dw->dinv[0] * dw->y[0], dw->u6);
	}
	for (int r = 0; r < nd; ++r)
	{
		double x = dw[r].dinv[0] * dw[0].y[0] + dw[r].dinv[1] * dw[1].y[0] + dw[r].dinv[2] * dw[2].y[0];
		z = sv6_mul_add(z, x, dw[r].u6);
	}
	return z;
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
	for (int j = 0; j < kd; ++j)
	{
		const int dof = rows->act_dof[j];
		const int link = a->dof_link[dof];
		// A fixed base stops the impulse: links in the base's other subtrees do not move (r_ij = 0).
		const int32_t tree = a->fixed_base ? a->subtree[link] : -1;

		// Inward from the impulsed joint to the root.
		sv6 z = sv6_zero();
		for (int i = link; i > 0; i = a->links[i].parent)
		{
			const artic_link* l = a->links + i;
			artic_dof_work* dw = a->dw + l->dof;
			for (int d = 0; d < l->dof_count; ++d)
			{
				dw[d].y[0] = (i == link) ? (l->dof + d == dof ? 1.0 : 0.0) : -sv6_dot(dw[d].s, z);
			}
			z = joint_send(dw, l->dof_count, z);
			a->needed[i] |= ANCESTOR;
		}
		a->work[0].m.z[0] = a->fixed_base ? sv6_zero() : artic_base_response(a, z);

		// Outward over the links that lead to the active dofs j, j + 1, ...: W is symmetric, so the entries
		// above the diagonal are those the earlier columns found.
		for (int i = 1; i < n; ++i)
		{
			if (a->reach[i] < j || (tree >= 0 && a->subtree[i] != tree))
			{
				continue;
			}
			const artic_link* l = a->links + i;
			artic_work* w = a->work + i;
			artic_dof_work* dw = a->dw + l->dof;
			sv6 dvp = a->work[l->parent].m.z[0];
			sv6 dv = dvp;
			if (l->dof_count > 0)
			{
				bool ancestor = (a->needed[i] & ANCESTOR) != 0;
				double t[3];
				for (int d = 0; d < l->dof_count; ++d)
				{
					t[d] = (ancestor ? dw[d].y[0] : 0.0) - sv6_dot(dw[d].u6, dvp);
				}
				joint_solve(dw, l->dof_count, t, &dv);
			}
			w->m.z[0] = dv;
		}
		const int lo = rows->span_lo[j], hi = rows->span_hi[j];
		double* column = rows->w + j * k;
		for (int s = j; s < kd; ++s)
		{
			double r = s >= lo && s < hi ? a->dw[rows->act_dof[s]].y[0] : 0.0;
			column[s] = r;
			rows->w[s * k + j] = r;
		}
		if (k > kd)
		{
			// The base's velocity change (base slots, w then v about O), and by symmetry the dof's response
			// to a unit impulse on the base.
			const sv6 dv0 = a->work[0].m.z[0];
			const double b[ARTIC_BASE_SLOTS] = { dv0.w.x, dv0.w.y, dv0.w.z, dv0.v.x, dv0.v.y, dv0.v.z };
			for (int c = 0; c < ARTIC_BASE_SLOTS; ++c)
			{
				column[kd + c] = b[c];
				rows->w[(kd + c) * k + j] = b[c];
			}
		}
		for (int i = link; i > 0; i = a->links[i].parent)
		{
			a->needed[i] &= (uint8_t)~ANCESTOR;
		}
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
	// The factorisation a solve of the next step would use (scratch only; the state is not touched).
	artic_forward(a, world->def.gravity, world->def.time_step / world->def.substeps);
	for (int d = 0; d < a->dof_count; ++d)
	{
		a->dw[d].y[0] = 0.0;
	}
	a->dw[dof_j].y[0] = 1.0;
	sv6 base;
	artic_impulse_response(a, 1, &base);
	*response = a->dw[dof_i].y[0];
	return SN_ERR_OK;
}
