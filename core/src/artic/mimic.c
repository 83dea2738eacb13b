// Mimic joints, after the PhysX team's notes "Mimic Joints" (2024), whose equation numbers the derivation
// follows: q_0 + sum_{i>=1} G_i q_i + gamma = 0 over dofs of one articulation, as one constraint row
// solved in the world's PGS and TGS iterations.
//
// Derivation. With s = (q_0, ..., q_{N-1}) the coupled positions, C(s) = q_0 + sum G_i q_i + gamma
// (eq. 3, 18), J = dC/ds = (1, G_1, ..., G_{N-1}) (eq. 7) and the speeds v = ds/dt, the velocity
// condition with Baumgarte feedback is J v + b = 0, b = erp C / dt (eq. 5, 6, 8). A workless
// constraint force F = J^T f (eq. 11) applied over dt changes the speeds by dt M^-1 J^T f (eq. 9), with
// M^-1 the matrix of unit responses among the coupled dofs, [r_ij] (eq. 10; artic/response.c computes
// it by test impulses and it is 0 between sub-trees of a fixed root). Projecting with J:
//   dt f = -(b + J v) / (J M^-1 J^T)                                        (eq. 12)
//   J M^-1 J^T = r_00 + sum_{i>=1} G_i (r_0i + r_i0) + sum_{i,j>=1} G_i G_j r_ij  (eq. 15; for N = 2
//              = r_AA + G (r_AB + r_BA) + G^2 r_BB)
// and dof i receives the impulse G_i dt f (eq. 13, 14; G_0 = 1). The reciprocal (eq. 16) is computed once
// per solve, as are b and the responses in PGS (positions fixed); TGS recomputes b from the displaced
// positions each window and keeps the responses of the solve's start, as the notes do (eq. 17).
// In iterations the row adds dP = -(b_n + J v_n) / (J M^-1 J^T) to its accumulated impulse (eq. 17).
// The bias b_n is kept out of the physical impulse: a second impulse on pseudo speeds, which move the
// positions of one window and are then dropped, drives J v_p to -beta C (artic/solve.c, split impulse),
// with beta chosen so that erp of the error is removed per step (erp / dt for one window, as eq. 5), and
// the physical impulse solves J v = 0. A correction therefore never becomes lasting speed.
//
// Compliance: with a natural frequency f and damping ratio zeta (sn_soft) the row becomes the implicit
// spring-damper of constraint/soft.h on the row's own effective mass 1 / (J M^-1 J^T): k = m w^2,
// c = 2 m zeta w.
// The impulse is clamped to |P| <= max_force h_w on dof 0 (dof i then receives at most |G_i| max_force),
// and the coupling force of a step is the row's total impulse over the step divided by dt.
//
// The row's impulse changes the active speeds by W J^T dP: the vector W J^T (a column combination of
// the responses) is formed once per solve, so each application costs k multiply-adds.
#include "artic/artic.h"
#include "island.h"

#include "world.h"

#include <math.h>
#include <string.h>

static artic_mimic* mimic_get(const sn_world* world, sn_mimic_id id)
{
	if (world == NULL || world->artics == NULL)
	{
		return NULL;
	}
	const artic_store* s = world->artics;
	if (id.index1 <= 0 || id.index1 > s->mimic_high)
	{
		return NULL;
	}
	artic_mimic* m = s->mimics + (id.index1 - 1);
	return (m->live && world_id_generation(world, m->generation) == id.generation) ? m : NULL;
}

static sn_mimic_id mimic_id_of(const sn_world* world, int index)
{
	sn_mimic_id id = { index + 1, world_id_generation(world, world->artics->mimics[index].generation) };
	return id;
}

sn_mimic_def sn_default_mimic_def(void)
{
	sn_mimic_def def;
	memset(&def, 0, sizeof(def));
	def.dof_count = 2;
	def.dofs[1] = 1;
	for (int i = 0; i < SN_MIMIC_MAX_DOFS; ++i)
	{
		def.gearing[i] = 1.0;
	}
	def.gearing[1] = -1.0;
	def.erp = 0.2;
	def.soft = sn_soft_rigid();
	def.max_force = INFINITY;
	return def;
}

sn_error artic_mimic_check(sn_world* world, const sn_mimic_def* def, artic** out)
{
	*out = artic_get(world, def->articulation);
	if (*out == NULL)
	{
		return world_fail(world, SN_ERR_INVALID_ID, "create mimic joint: articulation is not a live articulation");
	}
	const artic* a = *out;
	if (def->dof_count < 2 || def->dof_count > SN_MIMIC_MAX_DOFS)
	{
		return world_fail(world, SN_ERR_INVALID_ARGUMENT, "create mimic joint: dof_count must be in [2, %d], got %d",
						  SN_MIMIC_MAX_DOFS, def->dof_count);
	}
	for (int i = 0; i < def->dof_count; ++i)
	{
		if (def->dofs[i] < 0 || def->dofs[i] >= a->dof_count)
		{
			return world_fail(world, SN_ERR_TOPOLOGY, "create mimic joint: dofs[%d] = %d is not a dof (0..%d)", i,
							  def->dofs[i], a->dof_count - 1);
		}
		for (int j = 0; j < i; ++j)
		{
			if (def->dofs[j] == def->dofs[i])
			{
				return world_fail(world, SN_ERR_TOPOLOGY,
								  "create mimic joint: dof %d appears twice (entries %d and %d)", def->dofs[i], j, i);
			}
		}
		if (i > 0 && !isfinite(def->gearing[i]))
		{
			return world_fail(world, SN_ERR_NOT_FINITE, "create mimic joint: gearing[%d] must be finite", i);
		}
	}
	if (!isfinite(def->offset) || !isfinite(def->erp) || isnan(def->max_force))
	{
		return world_fail(world, SN_ERR_NOT_FINITE,
						  "create mimic joint: offset and erp must be finite, max_force not NaN");
	}
	if (def->erp < 0.0 || def->erp > 1.0)
	{
		return world_fail(world, SN_ERR_INVALID_ARGUMENT, "create mimic joint: erp must be in [0, 1], got %g",
						  def->erp);
	}
	if (def->max_force < 0.0)
	{
		return world_fail(world, SN_ERR_NEGATIVE_VALUE, "create mimic joint: max_force must be >= 0, got %g",
						  def->max_force);
	}
	sn_error err = soft_check(def->soft);
	if (err == SN_ERR_NOT_FINITE || err == SN_ERR_NEGATIVE_VALUE)
	{
		return world_fail(world, err, "create mimic joint: softness values must be finite and >= 0");
	}
	if (err != SN_ERR_OK)
	{
		return world_fail(world, SN_ERR_INVALID_ARGUMENT, "create mimic joint: unknown softness kind %d",
						  (int)def->soft.kind);
	}
	return SN_ERR_OK;
}

sn_error sn_create_mimic_joint(sn_world* world, const sn_mimic_def* def, sn_mimic_id* out_id)
{
	if (world == NULL)
	{
		return SN_ERR_INVALID_ARGUMENT;
	}
	if (def == NULL || out_id == NULL)
	{
		return world_fail(world, SN_ERR_INVALID_ARGUMENT, "create mimic joint: def and out_id must not be NULL");
	}
	artic* a;
	sn_error err = artic_mimic_check(world, def, &a);
	if (err != SN_ERR_OK)
	{
		return err;
	}
	// The rows first: past their capacity nothing, the pool neither, may grow.
	err = artic_reserve_rows(world, a, def);
	if (err != SN_ERR_OK)
	{
		return err;
	}
	artic_store* s = world->artics;
	if (s->mimic_free < 0 && s->mimic_high >= s->mimic_capacity)
	{
		void* p = s->mimics;
		if (!memory_reserve(&world->memory, &p, &s->mimic_capacity, s->mimic_high + 1, sizeof(artic_mimic)))
		{
			return world_fail(world, SN_ERR_NO_MEMORY, "create mimic joint: out of memory");
		}
		s->mimics = p;
	}
	int32_t index = s->mimic_free;
	if (index >= 0)
	{
		s->mimic_free = s->mimics[index].next_free;
	}
	else
	{
		index = s->mimic_high++;
		s->mimics[index].generation = 1;
	}
	artic_mimic* m = s->mimics + index;
	uint32_t generation = m->generation;
	memset(m, 0, sizeof(*m));
	m->generation = generation;
	m->next_free = -1;
	m->live = true;
	m->artic = (int32_t)(a - s->items);
	m->def = *def;
	m->def.gearing[0] = 1.0;
	for (int i = def->dof_count; i < SN_MIMIC_MAX_DOFS; ++i)
	{
		m->def.dofs[i] = 0;
		m->def.gearing[i] = 0.0;
	}
	a->mimic_count += 1;
	s->mimic_count += 1;
	*out_id = mimic_id_of(world, index);
	island_wake_artic(world, def->articulation.index1 - 1);
	return SN_ERR_OK;
}

static void release(artic_store* s, int index)
{
	artic_mimic* m = s->mimics + index;
	m->live = false;
	m->generation += 1;
	if (m->generation == 0)
	{
		m->generation = 1;
	}
	m->next_free = s->mimic_free;
	s->mimic_free = index;
	s->mimic_count -= 1;
}

sn_error sn_destroy_mimic_joint(sn_world* world, sn_mimic_id id)
{
	artic_mimic* m = mimic_get(world, id);
	if (m == NULL)
	{
		return world != NULL ? world_fail(world, SN_ERR_INVALID_ID, "destroy mimic joint: invalid id")
							 : SN_ERR_INVALID_ARGUMENT;
	}
	artic_store* s = world->artics;
	s->items[m->artic].mimic_count -= 1;
	island_wake_artic(world, m->artic);
	release(s, (int)(m - s->mimics));
	return SN_ERR_OK;
}

void artic_mimic_destroy_all(sn_world* world, int artic_index)
{
	artic_store* s = world->artics;
	for (int i = 0; i < s->mimic_high; ++i)
	{
		if (s->mimics[i].live && s->mimics[i].artic == artic_index)
		{
			release(s, i);
		}
	}
	s->items[artic_index].mimic_count = 0;
}

bool sn_mimic_joint_is_valid(const sn_world* world, sn_mimic_id id)
{
	return mimic_get(world, id) != NULL;
}

double sn_mimic_joint_get_force(const sn_world* world, sn_mimic_id id)
{
	const artic_mimic* m = mimic_get(world, id);
	return m != NULL ? m->force : 0.0;
}

double artic_mimic_error(const artic* a, const sn_mimic_def* def)
{
	double c = def->offset + a->q[def->dofs[0]];
	for (int i = 1; i < def->dof_count; ++i)
	{
		c += def->gearing[i] * a->q[def->dofs[i]];
	}
	return c;
}

double sn_mimic_joint_get_error(const sn_world* world, sn_mimic_id id)
{
	const artic_mimic* m = mimic_get(world, id);
	if (m == NULL)
	{
		return 0.0;
	}
	return artic_mimic_error(world->artics->items + m->artic, &m->def);
}

sn_mimic_def sn_mimic_joint_get_def(const sn_world* world, sn_mimic_id id)
{
	const artic_mimic* m = mimic_get(world, id);
	return m != NULL ? m->def : sn_default_mimic_def();
}

int sn_world_get_mimic_joints(const sn_world* world, sn_mimic_id* ids, int capacity)
{
	if (world == NULL || world->artics == NULL)
	{
		return 0;
	}
	int n = 0;
	for (int i = 0; i < world->artics->mimic_high; ++i)
	{
		if (world->artics->mimics[i].live)
		{
			if (ids != NULL && n < capacity)
			{
				ids[n] = mimic_id_of(world, i);
			}
			n += 1;
		}
	}
	return n;
}

// ---- rows ---------------------------------------------------------------------------------------------

void artic_mimic_build_rows(sn_world* world, int artic_index, artic* a, double hw, int windows)
{
	artic_store* s = world->artics;
	artic_rows* rs = &a->rows;
	const int k = rs->k;
	int used = 0;
	for (int m = 0; m < s->mimic_high && a->mimic_count > 0; ++m)
	{
		const artic_mimic* mm = s->mimics + m;
		if (!mm->live || mm->artic != artic_index)
		{
			continue;
		}
		const sn_mimic_def* def = &mm->def;
		double* wj = rs->wj + (size_t)used * (size_t)rs->k_capacity;
		used += 1;
		// W J^T, then J W J^T (eq. 15 / 18) and the position error.
		for (int r = 0; r < k; ++r)
		{
			wj[r] = 0.0;
		}
		double c0 = def->offset;
		for (int i = 0; i < def->dof_count; ++i)
		{
			int slot = a->dof_slot[def->dofs[i]];
			double g = def->gearing[i];
			for (int r = 0; r < k; ++r)
			{
				wj[r] += g * rs->w[slot * k + r];
			}
			c0 += g * rs->x0[slot];
		}
		double kk = 0.0;
		for (int i = 0; i < def->dof_count; ++i)
		{
			kk += def->gearing[i] * wj[a->dof_slot[def->dofs[i]]];
		}
		artic_row* ar = rs->rows + rs->count;
		memset(ar, 0, sizeof(*ar));
		ar->kind = ARTIC_ROW_MIMIC;
		ar->key = m;
		ar->slot = -1;
		ar->sign = 1.0;
		ar->k = kk;
		ar->inv_k = kk > 0.0 ? 1.0 / kk : 0.0;
		ar->c0 = c0;
		ar->bound = def->max_force;
		ar->wj = wj;
		ar->mcount = def->dof_count;
		ar->lo = k;
		ar->hi = 0;
		for (int i = 0; i < def->dof_count; ++i)
		{
			int slot = a->dof_slot[def->dofs[i]];
			ar->mslot[i] = slot;
			ar->mgear[i] = def->gearing[i];
			ar->lo = rs->span_lo[slot] < ar->lo ? rs->span_lo[slot] : ar->lo;
			ar->hi = rs->span_hi[slot] > ar->hi ? rs->span_hi[slot] : ar->hi;
		}
		ar->soft = def->soft.kind != SN_SOFT_RIGID;
		ar->splits = !ar->soft;
		if (!soft_coefficients_for(def->soft, kk, hw, artic_row_bias_rate(a, def->erp, windows, hw), &ar->coef))
		{
			continue; // a compliant row with zero stiffness and damping couples nothing
		}
		rs->count += 1;
	}
}

void artic_mimic_store(sn_world* world, artic* a, double h)
{
	artic_store* s = world->artics;
	const artic_rows* rs = &a->rows;
	int index = (int)(a - s->items);
	for (int m = 0; m < s->mimic_high && a->mimic_count > 0; ++m)
	{
		if (s->mimics[m].live && s->mimics[m].artic == index)
		{
			s->mimics[m].warm = 0.0;
		}
	}
	for (int i = 0; i < rs->count; ++i)
	{
		const artic_row* ar = rs->rows + i;
		if (ar->kind == ARTIC_ROW_MIMIC)
		{
			artic_mimic* mm = s->mimics + ar->key;
			mm->warm = (ar->total - ar->hold) / h; // the force beyond the hold (artic/solve.c)
			mm->step_impulse += ar->total;
		}
	}
}
