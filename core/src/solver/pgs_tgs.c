// PGS and TGS for maximal coordinates: velocity-level rows J v + b = 0 with an error reduction parameter
// (Baraff 1996; ODE's erp), solved by sequential impulses (Catto's GDC talks), with the PGS and TGS
// iteration schemes of PhysX's implicit drive notes ("Implicit Spring Joint Drives", 2024).
//
// Bodies integrate as in body.c (implicit gyroscopic torque); orientation advances by the exact
// exponential map q' = exp(h w) q.
//
// Velocity and position are corrected apart (split impulse, the "separate position pass"): each
// sweep solves every row's velocity condition with a physical impulse that is warm-started and reported
// as the joint's force, and, in position sweeps, the position error of rigid rows with a second impulse
// on pseudo velocities that move the bodies in this solve only. Warm-starting a Baumgarte-biased impulse
// instead re-applies last step's correction and pumps energy into chains until they fly apart.
//
// A row's sequential impulse steps (constraint/row.h, constraint/soft.h), K = J M^-1 J^T:
//   motor             dP = -(Cdot - speed) / K
//   speculative       dP = -(Cdot + C/h) / K                     unilateral row with C > 0
//   soft              dP = -(Cdot + bias_rate C - vel_scale v_T + gamma P) / (K + gamma)
//   rigid             dP = -(Cdot - v_T) / K,   push: dQ = -(Cdot_pseudo + erp C / h) / K
//   capped servo      dP = -(Cdot + erp C / h) / K               rigid spring with a force bound
// then each accumulator is clamped to its bounds and only the clamped change is applied. The rigid
// lock rows of one joint are solved as a block (constraint/row.h).
//
// PGS (one solve of length h): integrate velocities; build rows at the current pose; warm-start;
// position_iterations sweeps (velocity and push; soft rows with C fixed at its start value); advance
// positions with v + pseudo v; velocity_iterations sweeps without push (soft rows continue, the drive
// notes' "PGS velocity iteration").
//
// TGS (one solve of length h in n = position_iterations sub-advances of rho = h / n): each sub-advance
// integrates velocities over rho, builds rows at the pose it starts from, warm-starts, runs one position
// sweep and advances positions by rho; then velocity_iterations sweeps without push, soft rows frozen.
#include "solver/pgs_tgs.h"

#include "artic/artic.h"
#include "body.h"
#include "constraint/link_row.h"
#include "constraint/row.h"
#include "contact/solver.h"
#include "island.h"
#include "joint/joint.h"
#include "math/mathx.h"
#include "world.h"

#include <math.h>
#include <string.h>

enum solve_mode
{
	SOLVE_PGS_POSITION,
	SOLVE_PGS_VELOCITY,
	SOLVE_TGS_POSITION,
	SOLVE_TGS_VELOCITY,
};

// Solver bodies (index 0 is the static ground) and the velocity update with implicit gyroscopic
// torque are shared with the other solvers (body.c).
static void prepare_bodies(sn_world* world)
{
	body_prepare_solver_slots(world);
}

static void integrate_velocities(sn_world* world, double h)
{
	sn_vec3 gravity = world->def.gravity;
	for (int i = 1; i < world->solver_count; ++i)
	{
		const body* b = world->bodies + world->solver_infos[i].body;
		if (b->type == SN_BODY_DYNAMIC)
		{
			solver_body* s = world->solver_bodies + i;
			body_integrate_velocity(b, gravity, h, &s->v, &s->w);
		}
	}
}

static void integrate_positions(sn_world* world, double h)
{
	for (int i = 1; i < world->solver_count; ++i)
	{
		body* b = world->bodies + world->solver_infos[i].body;
		solver_body* s = world->solver_bodies + i;
		sn_vec3 dp = sn_scale(h, sn_add(s->v, s->vp));
		sn_vec3 w = sn_add(s->w, s->wp);
		b->com = sn_add(b->com, dp);
		s->dp = sn_add(s->dp, dp);
		b->solve_dp = sn_add(b->solve_dp, dp);
		b->q = quat_integrate(b->q, w, h);
		s->dtheta = sn_mul_add(s->dtheta, h, w);
		b->solve_dtheta = sn_mul_add(b->solve_dtheta, h, w);
		s->vp = sn_v3(0, 0, 0);
		s->wp = sn_v3(0, 0, 0);
	}
}

// Whether a joint belongs to the solve: every joint, or in the articulations' path of an XPBD or DIRECT
// world only those of the articulations' islands.
static bool joint_in_subset(const sn_world* world, const joint* j)
{
	return world->solver_subset != SUBSET_ARTICULATED || j->articulated;
}

// The rows of every enabled joint of the solve (joint_in_subset). Joints of which no side moves (both asleep
// or static) are skipped.
static void build_rows(sn_world* world, double h, double rigid_bias_rate)
{
	row_builder b;
	b.rows = world->rows;
	b.count = 0;
	b.blocks = world->blocks;
	b.block_count = 0;
	b.project_free_rows = true;
	b.h = h;
	b.rigid_bias_rate = rigid_bias_rate;
	b.world = world;
	world->link_rows.used = 0;
	for (int i = 0; i < world->joint_high; ++i)
	{
		const joint* j = world->joints + i;
		if (!j->live || !j->enabled || j->broken || !joint_in_subset(world, j))
		{
			continue;
		}
		if (!island_body_moves(world, j->body_a) && !island_body_moves(world, j->body_b) &&
			!(j->body_a >= 0 && world->bodies[j->body_a].type == SN_BODY_KINEMATIC) &&
			!(j->body_b >= 0 && world->bodies[j->body_b].type == SN_BODY_KINEMATIC))
		{
			continue; // nothing on either side moves: inert rows
		}
		joint_frame f;
		joint_frame_compute(world, j, &f);
		builder_begin_joint(world, &b, i);
		joint_build_rows(world, j, &f, &b);
	}
	world->row_count = b.count;
	world->block_count = b.block_count;
}


static void warm_start(sn_world* world)
{
	solver_body* sb = world->solver_bodies;
	double factor = world->def.warm_start;
	for (int r = 0; r < world->row_count; ++r)
	{
		row* rw = world->rows + r;
		if (factor != 1.0)
		{
			rw->impulse *= factor;
		}
		if (rw->impulse != 0.0)
		{
			row_apply(rw, sb, rw->impulse);
			if (rw->flags & ROW_LINK)
			{
				link_row_apply(world, rw, rw->impulse, false);
			}
			rw->total += rw->impulse;
		}
	}
}

// A block of rigid bilateral rows: dP = -K^-1 Cdot on velocities, dQ = -K^-1 (Cdot_pseudo + erp C / h)
// on pseudo velocities, all rows at once.
static void solve_block(sn_world* world, const row_block* blk, bool tgs, bool push)
{
	solver_body* sb = world->solver_bodies;
	row* rows = world->rows + blk->first;
	int n = blk->n;
	// Zeroed: GCC -O3 cannot see that n >= 2 and warns that ldlt_solve may read an unset rhs.
	double rhs[ROW_BLOCK_MAX] = { 0.0 }, x[ROW_BLOCK_MAX];
	const bool links = (rows[0].flags & ROW_LINK) != 0; // a joint's rows all have its link sides
	for (int i = 0; i < n; ++i)
	{
		double cdot = row_cdot(rows + i, sb) + (links ? link_row_cdot(world, rows + i, false) : 0.0);
		rhs[i] = -(cdot - rows[i].target_speed);
	}
	ldlt_solve(blk->l, blk->d_inv, n, rhs, x);
	for (int i = 0; i < n; ++i)
	{
		double delta = x[i];
		row* r = rows + i;
		r->impulse += delta;
		r->total += delta;
		row_apply(r, sb, delta);
		if (links)
		{
			link_row_apply(world, r, delta, false);
		}
	}
	if (!push)
	{
		return;
	}
	for (int i = 0; i < n; ++i)
	{
		const row* r = rows + i;
		double c = tgs ? row_c_now(r, sb) + (links ? link_row_displacement(world, r) : 0.0) : r->c0;
		double cdot = row_cdot_push(r, sb) + (links ? link_row_cdot(world, r, true) : 0.0);
		rhs[i] = -(cdot + r->coef.bias_rate * c);
	}
	ldlt_solve(blk->l, blk->d_inv, n, rhs, x);
	for (int i = 0; i < n; ++i)
	{
		double delta = x[i];
		row* r = rows + i;
		r->push += delta;
		row_apply_push(r, sb, delta);
		if (links)
		{
			link_row_apply(world, r, delta, true);
		}
	}
}

static double clamp_accumulate(double* accumulator, double delta, double lo, double hi)
{
	double p = *accumulator + delta;
	p = p < lo ? lo : (p > hi ? hi : p);
	delta = p - *accumulator;
	*accumulator = p;
	return delta;
}

static void solve_rows(sn_world* world, enum solve_mode mode, double h)
{
	solver_body* sb = world->solver_bodies;
	double inv_h = 1.0 / h;
	bool tgs = mode == SOLVE_TGS_POSITION || mode == SOLVE_TGS_VELOCITY;
	bool position = mode == SOLVE_PGS_POSITION || mode == SOLVE_TGS_POSITION;
	bool freeze_soft = mode == SOLVE_TGS_VELOCITY;
	for (int i = 0; i < world->row_count; ++i)
	{
		row* r = world->rows + i;
		if (r->block >= 0)
		{
			const row_block* blk = world->blocks + r->block;
			solve_block(world, blk, tgs, position);
			i += blk->n - 1;
			continue;
		}
		const bool links = (r->flags & ROW_LINK) != 0;
		double c = (r->flags & ROW_VELOCITY) ? 0.0 : (tgs ? row_c_now(r, sb) : r->c0);
		double cdot = row_cdot(r, sb);
		if (links)
		{
			c += tgs && !(r->flags & ROW_VELOCITY) ? link_row_displacement(world, r) : 0.0;
			cdot += link_row_cdot(world, r, false);
		}
		double delta;
		bool split = row_splits(r);
		if (r->flags & ROW_VELOCITY)
		{
			delta = -r->coef.eff_mass * (cdot - r->target_speed);
		}
		else if ((r->flags & ROW_UNILATERAL) && c > 0.0)
		{
			delta = -(cdot + c * inv_h) / r->k;
		}
		else if (r->flags & ROW_SOFT)
		{
			if (freeze_soft)
			{
				continue;
			}
			const soft_coefficients* k = &r->coef;
			delta = -k->eff_mass * (cdot + k->bias_rate * c - k->vel_scale * r->target_speed) -
				k->impulse_scale * r->impulse;
		}
		else if (split)
		{
			delta = -r->coef.eff_mass * (cdot - r->target_speed);
		}
		else
		{
			double bias = position ? r->coef.bias_rate * c : 0.0;
			delta = -r->coef.eff_mass * (cdot + bias - r->target_speed);
		}
		delta = clamp_accumulate(&r->impulse, delta, r->lo, r->hi);
		r->total += delta;
		row_apply(r, sb, delta);
		if (links)
		{
			link_row_apply(world, r, delta, false);
		}

		if (position && split && ((r->flags & ROW_UNILATERAL) == 0 || c < 0.0))
		{
			double vp = row_cdot_push(r, sb) + (links ? link_row_cdot(world, r, true) : 0.0);
			double dq = -r->coef.eff_mass * (vp + r->coef.bias_rate * c);
			dq = clamp_accumulate(&r->push, dq, r->lo, r->hi);
			row_apply_push(r, sb, dq);
			if (links)
			{
				link_row_apply(world, r, dq, true);
			}
		}
	}
}

// Impulses of this solve into the joints: warm starts for the next solve (as forces, so a changed
// step length rescales them) and the step's accumulated impulse per joint for forces out. The rows'
// totals are consumed, so sweeps that follow add only their own change.
static void accumulate_joints(sn_world* world, double h_row)
{
	for (int i = 0; i < world->joint_high; ++i)
	{
		joint* j = world->joints + i;
		if (j->live && joint_in_subset(world, j))
		{
			memset(j->warm, 0, sizeof(j->warm));
		}
	}
	double inv_h = 1.0 / h_row;
	for (int r = 0; r < world->row_count; ++r)
	{
		row* rw = world->rows + r;
		joint* j = world->joints + rw->joint;
		j->warm[rw->slot] = rw->impulse * inv_h;
		j->force = sn_mul_add(j->force, rw->total, rw->lin);
		j->torque = sn_mul_add(j->torque, rw->total, rw->anchor_torque);
		rw->total = 0.0;
	}
}

void pgs_substep(sn_world* world, double h)
{
	const sn_world_def* def = &world->def;
	const bool contacts = world->contact_solver.count > 0;
	prepare_bodies(world);
	integrate_velocities(world, h);
	// Articulations: free motion (ABA), their rows and warm starts (artic/solve.c); links with contacts or
	// joints take part with every dof of their paths (before the joint rows, which read those slots).
	contact_solver_mark_links(world);
	joint_mark_links(world);
	artic_solve_begin(world, h, false, 1);
	build_rows(world, h, def->erp / h);
	warm_start(world);
	if (contacts)
	{
		contact_solve_begin(world, h, 1);
		contact_window_begin(world);
	}
	for (int i = 0; i < def->position_iterations; ++i)
	{
		solve_rows(world, SOLVE_PGS_POSITION, h);
		artic_solve_sweep(world, ARTIC_SWEEP_PGS_POSITION, 1);
		if (contacts)
		{
			contact_solve_sweep(world, true, false);
		}
	}
	integrate_positions(world, h);
	artic_solve_advance(world, h);
	for (int i = 0; i < def->velocity_iterations; ++i)
	{
		solve_rows(world, SOLVE_PGS_VELOCITY, h);
		artic_solve_sweep(world, ARTIC_SWEEP_PGS_VELOCITY, 1);
		if (contacts)
		{
			contact_solve_sweep(world, false, false);
		}
	}
	if (contacts)
	{
		contact_solve_restitution(world);
		contact_window_end(world);
		contact_solve_end(world);
	}
	body_store_solver_velocities(world);
	accumulate_joints(world, h);
	artic_solve_end(world);
}

void tgs_substep(sn_world* world, double h)
{
	const sn_world_def* def = &world->def;
	int n = def->position_iterations;
	double rho = h / n;
	// A world of articulations only skips the body pipeline entirely.
	bool bodies = world->body_count > 0 || world->link_rows.joints > 0;
	const bool contacts = world->contact_solver.count > 0;
	// Articulations: one ABA for the whole solve, then one window of length rho per position iteration
	// (artic/solve.c); links with contacts take part with every dof of their paths.
	contact_solver_mark_links(world);
	joint_mark_links(world);
	artic_solve_begin(world, h, true, n);
	if (!bodies && !contacts && !artic_solve_has_rows(world))
	{
		// Articulations in free motion alone: the windows would sweep nothing.
		artic_solve_end(world);
		return;
	}
	if (contacts)
	{
		contact_solve_begin(world, h, n);
		contact_solve_hold(world);
	}
	for (int i = 0; i < n; ++i)
	{
		if (bodies)
		{
			prepare_bodies(world);
			integrate_velocities(world, rho);
			build_rows(world, rho, def->erp / rho);
			warm_start(world);
		}
		if (contacts)
		{
			contact_window_begin(world);
		}
		if (bodies)
		{
			solve_rows(world, SOLVE_TGS_POSITION, rho);
		}
		artic_solve_sweep(world, ARTIC_SWEEP_TGS_POSITION, i + 1);
		if (contacts)
		{
			contact_solve_sweep(world, true, false);
			contact_window_end(world);
		}
		if (bodies)
		{
			integrate_positions(world, rho);
		}
		artic_solve_advance(world, rho);
		if (bodies)
		{
			body_store_solver_velocities(world);
			accumulate_joints(world, rho);
		}
	}
	if (def->velocity_iterations > 0 || contacts)
	{
		for (int i = 0; i < def->velocity_iterations; ++i)
		{
			if (bodies)
			{
				solve_rows(world, SOLVE_TGS_VELOCITY, rho);
			}
			artic_solve_sweep(world, ARTIC_SWEEP_TGS_VELOCITY, 0);
			if (contacts)
			{
				contact_solve_sweep(world, false, true);
			}
		}
		if (contacts)
		{
			contact_solve_restitution(world);
			contact_window_end(world);
			contact_solve_end(world);
		}
		if (bodies)
		{
			body_store_solver_velocities(world);
			accumulate_joints(world, rho);
		}
	}
	artic_solve_end(world);
}
