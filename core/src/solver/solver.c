// The solver dispatch: what a step asks of the world's solver (scratch, the per-step bookkeeping and one
// solve of length h), routed to PGS and TGS (pgs_tgs.c), XPBD (xpbd.c) or DIRECT (direct.c).
#include "solver/solver.h"

#include "artic/artic.h"
#include "body.h"
#include "contact/solver.h"
#include "solver/direct.h"
#include "solver/pgs_tgs.h"
#include "solver/xpbd.h"
#include "world.h"

bool solver_supported(sn_solver solver)
{
	return (int)solver >= 0 && solver < SN_SOLVER_COUNT;
}

sn_error solver_prepare(sn_world* world)
{
	switch (world->def.solver)
	{
		case SN_SOLVER_XPBD:
			return xpbd_reserve(world);
		case SN_SOLVER_DIRECT:
			return direct_prepare(world);
		default:
			return SN_ERR_OK;
	}
}

void solver_release(sn_world* world)
{
	xpbd_release(world);
	direct_release(world);
}

void solver_begin_step(sn_world* world)
{
	for (int i = 0; i < world->joint_high; ++i)
	{
		joint* j = world->joints + i;
		j->force = sn_v3(0, 0, 0);
		j->torque = sn_v3(0, 0, 0);
	}
}

void solver_end_step(sn_world* world, double dt)
{
	(void)dt;
	if (world->body_count == 0)
	{
		// Only links (or dead slots): a force on a link goes to its articulation (body.c), and a slot is
		// cleared when it is taken, so there is nothing to clear here.
		return;
	}
	for (int i = 0; i < world->body_high; ++i)
	{
		body* b = world->bodies + i;
		b->force = sn_v3(0, 0, 0);
		b->torque = sn_v3(0, 0, 0);
	}
}

void solver_substep(sn_world* world, double h)
{
	switch (world->def.solver)
	{
		case SN_SOLVER_PGS:
			pgs_substep(world, h);
			break;
		case SN_SOLVER_TGS:
			tgs_substep(world, h);
			break;
		// Articulations have no XPBD or DIRECT path: in those worlds they step with their own TGS solve
		// (artic/solve.c), here, after the maximal-coordinate bodies, together with every contact that
		// touches a link (contact/solver.c).
		case SN_SOLVER_XPBD:
			world->solver_subset = SUBSET_MAXIMAL;
			xpbd_substep(world, h);
			world->solver_subset = SUBSET_ALL;
			contact_link_pass_tgs(world, h);
			break;
		case SN_SOLVER_DIRECT:
			world->solver_subset = SUBSET_MAXIMAL;
			direct_substep(world, h);
			world->solver_subset = SUBSET_ALL;
			contact_link_pass_tgs(world, h);
			break;
		default:
			break;
	}
}
