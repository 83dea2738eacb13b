// The rows of an articulation solve and the entry points the world's solvers call.
//
// Rows act on dofs only (a link never touches a maximal-coordinate body), so they live in joint space:
// k active dofs (those with a limit, a drive, friction or a mimic joint), their speeds v (k numbers) and
// the response matrix W = [r_ij] of artic/response.c. An impulse P on a row with Jacobian J (over the
// active dofs) changes the speeds by W J^T P; one-dof rows have J = +-e_i, a mimic row J = (1, G_1, ...).
// Only at the end of the solve is the whole articulation updated, by one O(n) impulse pass.
//
// One solve of length h (a world substep), in PGS and in TGS:
//   1. ABA at the state the solve starts from (artic_forward, and artic_forward_midpoint for the
//      velocity terms at the midpoint speeds): free accelerations qdd and the factors of M; the
//      free-motion kick qd* = qd + h qdd is applied at once, as semi-implicit Euler does. A
//      kick spread over the TGS windows with frozen accelerations would advance positions with
//      h qd + h^2 (n+1)/(2n) qdd and gain energy at a rate (n-1)/(2n) h^2 w^2 per step for a mode of
//      frequency w; applied whole it gives exactly semi-implicit Euler when there are no rows.
//   2. Rows are built at the start positions x_0 with K = J W J^T, and warm-started with last solve's
//      forces: the impulse F_warm h is applied at once, together with the kick (so that a load the rows
//      carry, such as gravity on a stiff drive, is cancelled before any window starts, and a static
//      equilibrium stays exactly at rest through every window). Each window owns the share
//      F_warm h_w (h_w: the window length) as impulse already applied in it.
//   3. Windows. PGS: one window of length h, position_iterations sweeps with Baumgarte bias erp C / h,
//      positions advanced once, then velocity_iterations sweeps without bias (drives and soft rows
//      continue, as in PhysX's implicit drive notes). TGS: position_iterations windows of length
//      rho = h / n, one sweep each with the position error recomputed from the accumulated displacement
//      dx and bias erp C / rho, positions advanced by rho; then velocity_iterations sweeps without bias
//      in which drives and soft rows are frozen (as in the drive notes) and hard rows continue.
//   4. End: with P the total row impulse and Y = sum over windows of h_w P(at the window's end), the
//      velocities are qd* + M^-1 P and the positions advance by h qd* + M^-1 Y: exactly the sum of
//      h_w v over the windows, since each window advanced every dof with the speeds of that moment.
//
// Row solves (v_row = J v; c = c_0 + J dx in TGS, c_0 in PGS; h_w the window length):
//   drive           artic/drive.c (the drive notes' eq. 18 in PGS, eq. 44 in TGS), |acc| <= max_force h_w
//   friction        dP = -v_row / K, |acc| <= friction h_w
//   limit, c > 0    dP = -(v_row + c / h_w) / K (speculative: only stops the gap closing within the window)
//   limit, rigid    dP = -(v_row + erp c / h_w) / K in position sweeps, -v_row / K in velocity sweeps
//   limit, soft     dP = -m_soft (v_row + bias_rate c) - impulse_scale acc       (constraint/soft.h)
//   mimic           PhysX's mimic-joint notes, eq. (17): dP = -(b_n + J v_n) / (J M^-1 J^T) with
//                   b = erp C / h_w in position sweeps (0 in velocity sweeps), or the soft form with
//                   constraint/soft.h's coefficients; |acc| <= max_force h_w
// Unilateral rows keep acc >= 0 (lower: J = +1, C = x - lower; upper: J = -1, C = upper - x). Every dP is
// clamped through the window's accumulator acc, and only the clamped change is applied.
//
// Spherical dofs: a limit or drive on a rotation-vector component uses the speed along the same
// parent-side axis as its rate, exact for rotation about a fixed axis and first order otherwise.
#include "artic/artic.h"

#include "world.h"

#include <math.h>
#include <string.h>

static double clamp_accumulate(double* acc, double delta, double lo, double hi)
{
	double p = *acc + delta;
	p = p < lo ? lo : (p > hi ? hi : p);
	delta = p - *acc;
	*acc = p;
	return delta;
}

// Apply the impulse delta of a row to the active speeds and to the per-dof impulse totals.
static void apply_row(const sn_world* world, artic* a, const artic_row* ar, double delta)
{
	if (ar->kind == ARTIC_ROW_MIMIC)
	{
		artic_mimic_apply(world, a, ar, delta);
		return;
	}
	artic_rows* rs = &a->rows;
	const int k = rs->k;
	const double signed_delta = ar->sign * delta;
	const double* col = rs->w + ar->slot;
	for (int s = 0; s < k; ++s)
	{
		rs->v[s] += signed_delta * col[s * k];
	}
	rs->p[ar->slot] += signed_delta;
}

static void add_row(artic_rows* rs, artic_row_kind kind, int slot, int dof, double sign, double bound, double c0)
{
	artic_row* ar = rs->rows + rs->count++;
	memset(ar, 0, sizeof(*ar));
	ar->kind = (uint8_t)kind;
	ar->slot = slot;
	ar->key = dof;
	ar->sign = sign;
	ar->k = rs->w[slot * rs->k + slot];
	ar->bound = bound;
	ar->c0 = c0;
}

// Active dofs: those with a row. Mimic dofs were marked in dof_slot (0) by the caller.
static void choose_active(artic* a)
{
	artic_rows* rs = &a->rows;
	rs->k = 0;
	for (int d = 0; d < a->dof_count; ++d)
	{
		const artic_link* l = a->links + a->dof_link[d];
		bool active = a->dof_slot[d] >= 0 || a->limits[d].enabled || a->drives[d].enabled || l->joint_friction > 0.0;
		a->dof_slot[d] = active ? rs->k : -1;
		if (active)
		{
			rs->act_dof[rs->k++] = d;
		}
	}
}

// The one-dof rows of an articulation (drive, friction, limits per active dof, in dof order).
static void build_dof_rows(artic* a, double hw)
{
	artic_rows* rs = &a->rows;
	for (int s = 0; s < rs->k; ++s)
	{
		int d = rs->act_dof[s];
		const artic_link* l = a->links + a->dof_link[d];
		double x0 = rs->x0[s];
		double r = rs->w[s * rs->k + s];
		if (a->drives[d].enabled)
		{
			add_row(rs, ARTIC_ROW_DRIVE, s, d, 1.0, a->drives[d].max_force, 0.0);
			artic_drive_prepare(rs->rows + rs->count - 1, a->drives + d, r, x0, hw);
		}
		if (l->joint_friction > 0.0)
		{
			add_row(rs, ARTIC_ROW_FRICTION, s, d, 1.0, l->joint_friction, 0.0);
		}
		const sn_limit* lim = a->limits + d;
		if (lim->enabled)
		{
			for (int side = 0; side < 2; ++side)
			{
				double sign = side == 0 ? 1.0 : -1.0;
				double c0 = side == 0 ? x0 - lim->lower : lim->upper - x0;
				add_row(rs, side == 0 ? ARTIC_ROW_LOWER : ARTIC_ROW_UPPER, s, d, sign, INFINITY, c0);
				artic_row* ar = rs->rows + rs->count - 1;
				if (lim->soft.kind != SN_SOFT_RIGID)
				{
					ar->soft = soft_coefficients_for(lim->soft, r, hw, 0.0, &ar->coef);
					if (!ar->soft)
					{
						rs->count -= 1; // a soft limit with zero stiffness and damping exerts nothing
					}
				}
			}
		}
	}
}

static double warm_force(const artic* a, const artic_row* ar, const sn_world* world)
{
	if (ar->kind == ARTIC_ROW_MIMIC)
	{
		return world->artics->mimics[ar->key].warm;
	}
	return a->warm[ar->key * ARTIC_WARM_SLOTS + ar->kind];
}

// Pre-apply last solve's row forces over the whole solve (see the file header, step 2).
static void warm_start(sn_world* world, artic* a, double h, int windows)
{
	artic_rows* rs = &a->rows;
	for (int i = 0; i < rs->count; ++i)
	{
		artic_row* ar = rs->rows + i;
		double pre = warm_force(a, ar, world) * h;
		if (ar->kind == ARTIC_ROW_LOWER || ar->kind == ARTIC_ROW_UPPER)
		{
			pre = pre > 0.0 ? pre : 0.0;
		}
		else
		{
			double bound = ar->bound * h;
			pre = pre > bound ? bound : (pre < -bound ? -bound : pre);
		}
		if (!(pre != 0.0))
		{
			continue; // zero (or, defensively, NaN) warm starts apply nothing
		}
		ar->total = pre;
		ar->share = pre / windows;
		ar->acc = ar->share;
		apply_row(world, a, ar, pre);
	}
}

static void begin_one(sn_world* world, int index, artic* a, double h, bool tgs, int windows)
{
	artic_forward(a, world->def.gravity, h);
	if (a->midpoint)
	{
		artic_forward_midpoint(a, world->def.gravity, h);
	}
	a->solve_h = h;
	a->tgs = tgs;
	a->windows = windows;
	artic_rows* rs = &a->rows;
	rs->count = 0;
	rs->k = 0;
	if (rs->k_capacity == 0)
	{
		return;
	}
	for (int d = 0; d < a->dof_count; ++d)
	{
		a->dof_slot[d] = -1;
	}
	if (a->mimic_count > 0)
	{
		const artic_store* s = world->artics;
		for (int m = 0; m < s->mimic_high; ++m)
		{
			const artic_mimic* mm = s->mimics + m;
			if (mm->live && mm->artic == index)
			{
				for (int i = 0; i < mm->def.dof_count; ++i)
				{
					a->dof_slot[mm->def.dofs[i]] = 0;
				}
			}
		}
	}
	choose_active(a);
	if (rs->k == 0)
	{
		return;
	}
	artic_compute_response(a);
	for (int s = 0; s < rs->k; ++s)
	{
		int d = rs->act_dof[s];
		rs->v[s] = a->qd_free[d];
		rs->x0[s] = a->q[d];
		rs->dx[s] = 0.0;
		rs->p[s] = 0.0;
		rs->y[s] = 0.0;
	}
	double hw = h / windows;
	build_dof_rows(a, hw);
	artic_mimic_build_rows(world, index, a, hw);
	artic_drive_block_prepare(rs);
	warm_start(world, a, h, windows);
}

void artic_solve_begin(sn_world* world, double h, bool tgs, int windows)
{
	artic_store* s = world->artics;
	if (s == NULL)
	{
		return;
	}
	s->solving = 0;
	for (int i = 0; i < s->high; ++i)
	{
		if (s->items[i].live)
		{
			begin_one(world, i, s->items + i, h, tgs, windows);
			s->solving += s->items[i].rows.count > 0;
		}
	}
}

// The articulation's drives solved together (artic/drive.c). Returns false, applying nothing, if a drive
// would exceed its force bound: the sweep then updates the drives one by one.
static bool drive_block(const sn_world* world, artic* a, double hw, double time_left)
{
	artic_rows* rs = &a->rows;
	const int m = rs->block_count;
	for (int i = 0; i < m; ++i)
	{
		const artic_row* ar = rs->rows + rs->block_rows[i];
		double lambda = artic_drive_solve(ar, rs->v[ar->slot], a->tgs ? rs->dx[ar->slot] : 0.0, time_left);
		rs->block_x[i] = ar->drive_diag * (lambda - ar->acc);
	}
	artic_drive_block_solve(rs);
	for (int i = 0; i < m; ++i)
	{
		const artic_row* ar = rs->rows + rs->block_rows[i];
		double bound = ar->bound * hw;
		if (!(fabs(ar->acc + rs->block_x[i]) <= bound))
		{
			return false;
		}
	}
	for (int i = 0; i < m; ++i)
	{
		artic_row* ar = rs->rows + rs->block_rows[i];
		double delta = rs->block_x[i];
		if (delta != 0.0)
		{
			ar->acc += delta;
			ar->total += delta;
			apply_row(world, a, ar, delta);
		}
	}
	return true;
}

static void sweep_one(const sn_world* world, artic* a, artic_sweep sweep, int window)
{
	artic_rows* rs = &a->rows;
	const double hw = a->solve_h / a->windows;
	const double inv_hw = 1.0 / hw;
	const bool tgs = a->tgs;
	const bool position = sweep == ARTIC_SWEEP_PGS_POSITION || sweep == ARTIC_SWEEP_TGS_POSITION;
	const bool frozen = sweep == ARTIC_SWEEP_TGS_VELOCITY;
	const double erp = world->def.erp;
	// Time from the end of this window to the end of the solve (TGS sub-target, eq. 41).
	const double time_left = (sweep == ARTIC_SWEEP_TGS_POSITION) ? a->solve_h - window * hw : 0.0;
	if (sweep == ARTIC_SWEEP_TGS_POSITION)
	{
		for (int i = 0; i < rs->count; ++i)
		{
			rs->rows[i].acc = rs->rows[i].share; // a new window
		}
	}
	const bool block = !frozen && rs->block_count > 0 && drive_block(world, a, hw, time_left);
	for (int i = 0; i < rs->count; ++i)
	{
		artic_row* ar = rs->rows + i;
		if (block && ar->kind == ARTIC_ROW_DRIVE)
		{
			continue;
		}
		double v, dx;
		if (ar->kind == ARTIC_ROW_MIMIC)
		{
			v = artic_mimic_speed(world, a, ar, &dx);
		}
		else
		{
			v = ar->sign * rs->v[ar->slot];
			dx = ar->sign * rs->dx[ar->slot];
		}
		double c = tgs ? ar->c0 + dx : ar->c0;
		double delta, lo = -INFINITY, hi = INFINITY;
		switch ((artic_row_kind)ar->kind)
		{
			case ARTIC_ROW_DRIVE:
			{
				if (frozen)
				{
					continue;
				}
				double lambda = artic_drive_solve(ar, v, tgs ? dx : 0.0, time_left);
				delta = lambda - ar->acc;
				lo = -ar->bound * hw;
				hi = ar->bound * hw;
				break;
			}
			case ARTIC_ROW_FRICTION:
				delta = -v / ar->k;
				lo = -ar->bound * hw;
				hi = ar->bound * hw;
				break;
			case ARTIC_ROW_LOWER:
			case ARTIC_ROW_UPPER:
				lo = 0.0;
				if (c > 0.0)
				{
					delta = -(v + c * inv_hw) / ar->k;
				}
				else if (ar->soft)
				{
					if (frozen)
					{
						continue;
					}
					delta = -ar->coef.eff_mass * (v + ar->coef.bias_rate * c) - ar->coef.impulse_scale * ar->acc;
				}
				else
				{
					delta = -(v + (position ? erp * c * inv_hw : 0.0)) / ar->k;
				}
				break;
			case ARTIC_ROW_MIMIC:
			default:
				if (ar->soft)
				{
					if (frozen)
					{
						continue;
					}
					delta = -ar->coef.eff_mass * (v + ar->coef.bias_rate * c) - ar->coef.impulse_scale * ar->acc;
				}
				else
				{
					delta = -ar->coef.eff_mass * (v + (position ? ar->coef.bias_rate * c : 0.0));
				}
				lo = -ar->bound * hw;
				hi = ar->bound * hw;
				break;
		}
		delta = clamp_accumulate(&ar->acc, delta, lo, hi);
		if (delta != 0.0)
		{
			ar->total += delta;
			apply_row(world, a, ar, delta);
		}
	}
}

void artic_solve_sweep(sn_world* world, artic_sweep sweep, int window)
{
	artic_store* s = world->artics;
	if (s == NULL || s->solving == 0)
	{
		return;
	}
	for (int i = 0; i < s->high; ++i)
	{
		artic* a = s->items + i;
		if (a->live && a->rows.count > 0)
		{
			sweep_one(world, a, sweep, window);
		}
	}
}

void artic_solve_advance(sn_world* world, double hw)
{
	artic_store* s = world->artics;
	if (s == NULL || s->solving == 0)
	{
		return;
	}
	for (int i = 0; i < s->high; ++i)
	{
		artic* a = s->items + i;
		if (!a->live || a->rows.count == 0)
		{
			continue;
		}
		artic_rows* rs = &a->rows;
		for (int k = 0; k < rs->k; ++k)
		{
			rs->dx[k] += hw * rs->v[k];
			rs->y[k] += hw * rs->p[k];
		}
	}
}

static void end_one(sn_world* world, artic* a)
{
	artic_rows* rs = &a->rows;
	const double h = a->solve_h;
	// Warm starts and efforts are written only by rows; reset them only where rows wrote them.
	if (a->warm_set)
	{
		memset(a->warm, 0, (size_t)a->dof_count * ARTIC_WARM_SLOTS * sizeof(double));
		a->warm_set = false;
	}
	if (a->first_substep && a->effort_set)
	{
		memset(a->effort, 0, (size_t)a->dof_count * sizeof(double));
		a->effort_set = false;
	}
	bool have_rows = rs->count > 0;
	if (have_rows)
	{
		const double inv_h = 1.0 / h;
		for (int i = 0; i < rs->count; ++i)
		{
			const artic_row* ar = rs->rows + i;
			if (ar->kind == ARTIC_ROW_MIMIC)
			{
				continue;
			}
			a->warm[ar->key * ARTIC_WARM_SLOTS + ar->kind] = ar->total * inv_h;
			a->warm_set = true;
			if (ar->kind == ARTIC_ROW_DRIVE)
			{
				a->effort[ar->key] += ar->total;
				a->effort_set = true;
			}
		}
		artic_mimic_store(world, a, h);
		for (int d = 0; d < a->dof_count; ++d)
		{
			a->dw[d].y[0] = 0.0;
			a->dw[d].y[1] = 0.0;
		}
		for (int s = 0; s < rs->k; ++s)
		{
			a->dw[rs->act_dof[s]].y[0] = rs->p[s];
			a->dw[rs->act_dof[s]].y[1] = rs->y[s];
		}
	}
	artic_finish(a, h, have_rows);
}

void artic_solve_end(sn_world* world)
{
	artic_store* s = world->artics;
	if (s == NULL)
	{
		return;
	}
	for (int i = 0; i < s->high; ++i)
	{
		if (s->items[i].live)
		{
			end_one(world, s->items + i);
		}
	}
}

void artic_step_tgs(sn_world* world, double h)
{
	if (world->artics == NULL || world->artics->count == 0)
	{
		return;
	}
	const sn_world_def* def = &world->def;
	int n = def->position_iterations;
	double rho = h / n;
	artic_solve_begin(world, h, true, n);
	for (int i = 1; i <= n; ++i)
	{
		artic_solve_sweep(world, ARTIC_SWEEP_TGS_POSITION, i);
		artic_solve_advance(world, rho);
	}
	for (int i = 0; i < def->velocity_iterations; ++i)
	{
		artic_solve_sweep(world, ARTIC_SWEEP_TGS_VELOCITY, 0);
	}
	artic_solve_end(world);
}
