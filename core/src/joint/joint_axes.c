// The axis engine: rows for the six joint coordinates (joint.h derives their Jacobians), shared by the
// fixed, hinge, prismatic, cylindrical and six-axis joints, which differ only in which axes are locked.
//
// Each axis gives at most four rows:
//   lock    C = x                       bilateral, softness lock_soft
//   lower   C = x - lower >= 0           unilateral (P >= 0), softness of the limit
//   upper   C = upper - x >= 0           unilateral, Jacobian negated
//           (lower == upper: one bilateral row C = x - lower)
//   spring  C = x - target (wrapped to (-pi, pi] on angles), softness of the spring, |P| <= max_force h
//   motor   Cdot = speed, no position term, |P| <= max_force h
// Rows are emitted springs and motors first, then limits, then locks, so that in each Gauss-Seidel
// sweep the hard locks come last and are the best satisfied.
#include "joint/joint.h"

#include "math/mathx.h"

#include <math.h>

row* builder_emit(row_builder* b, int slot, sn_vec3 lin, sn_vec3 ang_a, sn_vec3 ang_b, double c, sn_soft soft,
				  double lo, double hi, double target_speed, uint16_t flags)
{
	row* r = b->rows + b->count;
	r->a = b->sa;
	r->b = b->sb;
	r->joint = b->joint_index;
	r->flags = 0;
	r->slot = (int16_t)slot;
	r->lin = lin;
	r->ang_a = ang_a;
	r->ang_b = ang_b;
	r->ma = b->ma;
	r->mb = b->mb;
	r->ia = sn_mat33_mul_v(b->inv_ia, ang_a);
	r->ib = sn_mat33_mul_v(b->inv_ib, ang_b);
	// Rows with a linear part push at B's anchor (ang_b = rB x lin): no torque about it.
	r->anchor_torque = sn_length_sq(lin) == 0.0 ? ang_b : sn_v3(0, 0, 0);
	r->k = row_inverse_mass(r);
	r->link_a = r->link_b = -1;
	r->jac_a = r->jac_b = -1;
	if (b->links && !link_row_prepare(b->world, &b->sides, r))
	{
		return NULL; // the link rows' scratch is full (it is reserved for every joint's rows: not reached)
	}
	if (!(r->k > 1e-300))
	{
		return NULL; // neither side can move along this row
	}
	if (!soft_is_hard(soft) && (flags & ROW_VELOCITY) == 0)
	{
		flags |= ROW_SOFT;
	}
	else
	{
		soft = sn_soft_rigid();
	}
	if (!soft_coefficients_for(soft, r->k, b->h, b->rigid_bias_rate, &r->coef))
	{
		return NULL; // a spring with zero stiffness and damping exerts nothing
	}
	r->flags = (uint16_t)(flags | (r->flags & ROW_LINK));
	r->soft = soft;
	r->c0 = c;
	r->target_speed = target_speed;
	r->lo = lo;
	r->hi = hi;
	r->impulse = b->warm[slot] * b->h;
	if (r->impulse < lo)
	{
		r->impulse = lo;
	}
	if (r->impulse > hi)
	{
		r->impulse = hi;
	}
	r->total = 0.0;
	r->push = 0.0;
	r->block = -1;
	b->count += 1;
	return r;
}

void builder_make_block(row_builder* b, int first)
{
	int n = b->count - first;
	if (n < 2 || n > ROW_BLOCK_MAX)
	{
		return;
	}
	row* rows = b->rows + first;
	for (int i = 0; i < n; ++i)
	{
		if ((rows[i].flags & ~ROW_LINK) != 0 || isfinite(rows[i].lo) || isfinite(rows[i].hi))
		{
			return; // only rigid, bilateral, unbounded rows
		}
	}
	double k[ROW_BLOCK_MAX * ROW_BLOCK_MAX];
	for (int i = 0; i < n; ++i)
	{
		for (int j = 0; j < n; ++j)
		{
			k[i * n + j] = i == j ? rows[i].k : row_coupling(rows + i, rows + j);
			if (i != j && b->links)
			{
				k[i * n + j] += link_row_coupling(b->world, rows + i, rows + j);
			}
		}
	}
	row_block* blk = b->blocks + b->block_count;
	if (!ldlt_factor(k, n, blk->l, blk->d_inv))
	{
		return; // dependent rows (a degenerate pose): leave them to scalar Gauss-Seidel
	}
	blk->first = first;
	blk->n = n;
	rows[0].block = b->block_count;
	b->block_count += 1;
}

void builder_project_free_rows(row_builder* b, int first)
{
	if (b->links)
	{
		return; // rows on links keep their own axes (their Jacobians over the slots are not projected)
	}
	// The joint's lock block, if it has one, is made of its last rows.
	const row_block* blk = NULL;
	for (int i = first; i < b->count; ++i)
	{
		if (b->rows[i].block >= 0)
		{
			blk = b->blocks + b->rows[i].block;
			break;
		}
	}
	if (blk == NULL)
	{
		return;
	}
	const row* locks = b->rows + blk->first;
	int n = blk->n;
	for (int i = first; i < blk->first; ++i)
	{
		row* r = b->rows + i;
		double c[ROW_BLOCK_MAX], alpha[ROW_BLOCK_MAX];
		for (int j = 0; j < n; ++j)
		{
			c[j] = row_coupling(r, locks + j);
		}
		ldlt_solve(blk->l, blk->d_inv, n, c, alpha);
		row p = *r;
		for (int j = 0; j < n; ++j)
		{
			const row* l = locks + j;
			p.lin = sn_mul_add(p.lin, -alpha[j], l->lin);
			p.ang_a = sn_mul_add(p.ang_a, -alpha[j], l->ang_a);
			p.ang_b = sn_mul_add(p.ang_b, -alpha[j], l->ang_b);
			p.ia = sn_mul_add(p.ia, -alpha[j], l->ia);
			p.ib = sn_mul_add(p.ib, -alpha[j], l->ib);
			p.anchor_torque = sn_mul_add(p.anchor_torque, -alpha[j], l->anchor_torque);
		}
		p.k = row_inverse_mass(&p);
		// An axis the locks hold entirely (a degenerate pose) keeps its unprojected row.
		if (!(p.k > 1e-9 * r->k) || !soft_coefficients_for(p.soft, p.k, b->h, b->rigid_bias_rate, &p.coef))
		{
			continue;
		}
		*r = p;
	}
}

static double force_bound(double max_force, double h)
{
	return isinf(max_force) ? INFINITY : max_force * h;
}

// Springs and motors of a moving axis.
static void drive_rows(row_builder* b, const joint* j, const joint_frame* f, int axis)
{
	const sn_joint_axis* ax = j->axes + axis;
	sn_vec3 lin, ang_a, ang_b;
	joint_axis_jacobian(f, axis, &lin, &ang_a, &ang_b);
	int base = axis * SLOTS_PER_AXIS;
	double x = f->coord[axis];
	if (ax->spring.enabled)
	{
		double c = x - ax->spring.target;
		if (axis >= SN_AXIS_RX)
		{
			c = wrap_angle(c);
		}
		double bound = force_bound(ax->spring.max_force, b->h);
		builder_emit(b, base + SLOT_MAIN, lin, ang_a, ang_b, c, ax->spring.soft, -bound, bound, 0.0, 0);
	}
	if (ax->motor.enabled)
	{
		double bound = force_bound(ax->motor.max_force, b->h);
		builder_emit(b, base + SLOT_MOTOR, lin, ang_a, ang_b, 0.0, sn_soft_rigid(), -bound, bound, ax->motor.speed,
					 ROW_VELOCITY);
	}
}

static void limit_rows(row_builder* b, const joint* j, const joint_frame* f, int axis)
{
	const sn_joint_axis* ax = j->axes + axis;
	if (ax->mode != SN_AXIS_LIMITED)
	{
		return;
	}
	sn_vec3 lin, ang_a, ang_b;
	joint_axis_jacobian(f, axis, &lin, &ang_a, &ang_b);
	int base = axis * SLOTS_PER_AXIS;
	double x = f->coord[axis];
	if (ax->lower == ax->upper)
	{
		builder_emit(b, base + SLOT_LOWER, lin, ang_a, ang_b, x - ax->lower, ax->limit_soft, -INFINITY, INFINITY, 0.0,
					 0);
		return;
	}
	builder_emit(b, base + SLOT_LOWER, lin, ang_a, ang_b, x - ax->lower, ax->limit_soft, 0.0, INFINITY, 0.0,
				 ROW_UNILATERAL);
	builder_emit(b, base + SLOT_UPPER, sn_neg(lin), sn_neg(ang_a), sn_neg(ang_b), ax->upper - x, ax->limit_soft, 0.0,
				 INFINITY, 0.0, ROW_UNILATERAL);
}

static void lock_row(row_builder* b, const joint* j, const joint_frame* f, int axis)
{
	sn_vec3 lin, ang_a, ang_b;
	joint_axis_jacobian(f, axis, &lin, &ang_a, &ang_b);
	builder_emit(b, axis * SLOTS_PER_AXIS + SLOT_MAIN, lin, ang_a, ang_b, f->coord[axis], j->lock_soft, -INFINITY,
				 INFINITY, 0.0, 0);
}

int axes_joint_build_rows(const joint* j, const joint_frame* f, row_builder* b)
{
	int start = b->count;
	for (int a = 0; a < SN_AXIS_COUNT; ++a)
	{
		if (j->movable & (1u << a))
		{
			drive_rows(b, j, f, a);
		}
	}
	for (int a = 0; a < SN_AXIS_COUNT; ++a)
	{
		if (j->movable & (1u << a))
		{
			limit_rows(b, j, f, a);
		}
	}
	int first_lock = b->count;
	for (int a = 0; a < SN_AXIS_COUNT; ++a)
	{
		if (j->axes[a].mode == SN_AXIS_LOCKED)
		{
			lock_row(b, j, f, a);
		}
	}
	builder_make_block(b, first_lock);
	return b->count - start;
}
