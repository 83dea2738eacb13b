// The articulation links' part of maximal-coordinate joint rows (constraint/link_row.h derives it).
#include "constraint/link_row.h"

#include "artic/artic.h"
#include "body.h"
#include "joint/joint.h"
#include "world.h"

bool link_row_sides_of(const sn_world* world, int32_t body_a, int32_t body_b, link_row_sides* out)
{
	const int32_t bodies[2] = { body_a, body_b };
	bool any = false;
	for (int s = 0; s < 2; ++s)
	{
		out->artic[s] = -1;
		out->link[s] = -1;
		out->com[s] = sn_v3(0, 0, 0);
		if (bodies[s] < 0 || world->bodies[bodies[s]].type != SN_BODY_LINK)
		{
			continue;
		}
		const body* b = world->bodies + bodies[s];
		out->artic[s] = b->artic;
		out->link[s] = b->link;
		out->com[s] = body_motion_of(world, bodies[s]).com;
		any = true;
	}
	return any;
}

static double* jac_at(const sn_world* world, int32_t offset)
{
	return world->link_rows.jac + offset;
}

static int slots_of(const sn_world* world, int32_t artic_index)
{
	return world->artics->items[artic_index].rows.k;
}

bool link_row_prepare(sn_world* world, const link_row_sides* sides, row* r)
{
	r->link_a = r->link_b = -1;
	r->jac_a = r->jac_b = -1;
	const bool same = sides->artic[0] >= 0 && sides->artic[0] == sides->artic[1];
	for (int s = 0; s < 2; ++s)
	{
		if (sides->artic[s] < 0)
		{
			continue;
		}
		artic* a = world->artics->items + sides->artic[s];
		const int k = a->rows.k;
		if (k == 0)
		{
			continue; // nothing of it moves (a fixed base)
		}
		sn_vec3 rc = sn_sub(sides->com[s], artic_solve_origin(a));
		sv6 j = s == 0 ? sv6_make(sn_sub(r->ang_a, sn_cross(rc, r->lin)), sn_neg(r->lin))
					   : sv6_make(sn_add(r->ang_b, sn_cross(rc, r->lin)), r->lin);
		// The side's J and W J^T (the same articulation's second side adds to the first's J).
		int32_t* link = s == 0 ? &r->link_a : &r->link_b;
		int32_t* jac = s == 0 ? &r->jac_a : &r->jac_b;
		if (same && s == 1 && r->jac_a >= 0)
		{
			double* ja = jac_at(world, r->jac_a);
			double* tmp = ja + k; // W J^T's room, recomputed below
			artic_contact_jacobian(a, sides->link[s], j, tmp);
			for (int i = 0; i < k; ++i)
			{
				ja[i] += tmp[i];
			}
			// Side B carries the pair: move the record over.
			r->link_b = r->link_a;
			r->jac_b = r->jac_a;
			r->link_a = -1;
			r->jac_a = -1;
			continue;
		}
		if (world->link_rows.used + 2 * (int64_t)k > world->link_rows.capacity)
		{
			return false;
		}
		*link = sides->artic[s];
		*jac = (int32_t)world->link_rows.used;
		world->link_rows.used += 2 * (int64_t)k;
		artic_contact_jacobian(a, sides->link[s], j, jac_at(world, *jac));
	}
	const int32_t links[2] = { r->link_a, r->link_b };
	const int32_t jacs[2] = { r->jac_a, r->jac_b };
	for (int s = 0; s < 2; ++s)
	{
		if (jacs[s] < 0)
		{
			continue;
		}
		const int k = slots_of(world, links[s]);
		double* j = jac_at(world, jacs[s]);
		artic_contact_response(world->artics->items + links[s], j, j + k);
		double x = 0.0;
		for (int i = 0; i < k; ++i)
		{
			x += j[i] * j[k + i];
		}
		r->k += x;
	}
	if (r->jac_a >= 0 || r->jac_b >= 0)
	{
		r->flags |= ROW_LINK;
	}
	return true;
}

double link_row_cdot(const sn_world* world, const row* r, bool pseudo)
{
	double x = 0.0;
	const int32_t links[2] = { r->link_a, r->link_b };
	const int32_t jacs[2] = { r->jac_a, r->jac_b };
	for (int s = 0; s < 2; ++s)
	{
		if (jacs[s] < 0)
		{
			continue;
		}
		const artic_rows* rs = &world->artics->items[links[s]].rows;
		const double* j = jac_at(world, jacs[s]);
		const double* v = pseudo ? rs->vp : rs->v;
		for (int i = 0; i < rs->k; ++i)
		{
			x += j[i] * v[i];
		}
	}
	return x;
}

void link_row_apply(sn_world* world, const row* r, double p, bool pseudo)
{
	const int32_t links[2] = { r->link_a, r->link_b };
	const int32_t jacs[2] = { r->jac_a, r->jac_b };
	for (int s = 0; s < 2; ++s)
	{
		if (jacs[s] < 0)
		{
			continue;
		}
		artic_rows* rs = &world->artics->items[links[s]].rows;
		const int k = rs->k;
		const double* j = jac_at(world, jacs[s]);
		double* v = pseudo ? rs->vp : rs->v;
		double* imp = pseudo ? rs->pp : rs->p;
		for (int i = 0; i < k; ++i)
		{
			v[i] += p * j[k + i];
			imp[i] += p * j[i];
		}
	}
}

double link_row_displacement(const sn_world* world, const row* r)
{
	double x = 0.0;
	const int32_t links[2] = { r->link_a, r->link_b };
	const int32_t jacs[2] = { r->jac_a, r->jac_b };
	for (int s = 0; s < 2; ++s)
	{
		if (jacs[s] < 0)
		{
			continue;
		}
		const artic_rows* rs = &world->artics->items[links[s]].rows;
		const double* j = jac_at(world, jacs[s]);
		for (int i = 0; i < rs->k; ++i)
		{
			x += j[i] * rs->dx[i];
		}
	}
	return x;
}

double link_row_coupling(const sn_world* world, const row* ri, const row* rj)
{
	double x = 0.0;
	const int32_t links_i[2] = { ri->link_a, ri->link_b }, jacs_i[2] = { ri->jac_a, ri->jac_b };
	const int32_t links_j[2] = { rj->link_a, rj->link_b }, jacs_j[2] = { rj->jac_a, rj->jac_b };
	for (int s = 0; s < 2; ++s)
	{
		if (jacs_i[s] < 0 || jacs_j[s] < 0 || links_i[s] != links_j[s])
		{
			continue;
		}
		const int k = slots_of(world, links_i[s]);
		const double* a = jac_at(world, jacs_i[s]);
		const double* wj = jac_at(world, jacs_j[s]) + k;
		for (int t = 0; t < k; ++t)
		{
			x += a[t] * wj[t];
		}
	}
	return x;
}

static bool is_link(const sn_world* world, int32_t body_index)
{
	return body_index >= 0 && world->bodies[body_index].type == SN_BODY_LINK;
}

void joint_mark_links(sn_world* world)
{
	if (world->link_rows.joints == 0)
	{
		return;
	}
	for (int i = 0; i < world->joint_high; ++i)
	{
		const joint* j = world->joints + i;
		if (!j->live || !j->enabled || j->broken)
		{
			continue;
		}
		const int32_t bodies[2] = { j->body_a, j->body_b };
		for (int s = 0; s < 2; ++s)
		{
			if (is_link(world, bodies[s]))
			{
				const body* b = world->bodies + bodies[s];
				artic_mark_contact_link(world->artics->items + b->artic, b->link);
			}
		}
	}
}

int64_t link_row_demand(sn_world* world)
{
	int64_t need = 0;
	int joints = 0;
	for (int i = 0; i < world->joint_high; ++i)
	{
		const joint* j = world->joints + i;
		if (!j->live)
		{
			continue;
		}
		const int32_t bodies[2] = { j->body_a, j->body_b };
		int64_t slots = 0;
		for (int s = 0; s < 2; ++s)
		{
			if (is_link(world, bodies[s]))
			{
				slots += world->artics->items[world->bodies[bodies[s]].artic].rows.k_capacity;
			}
		}
		joints += slots > 0 ? 1 : 0;
		need += 2 * slots * j->max_rows;
	}
	world->link_rows.joints = joints;
	return need;
}
