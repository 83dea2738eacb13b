// The solver dispatch: what a world step asks of the world's solver, routed to PGS and TGS
// (solver/pgs_tgs.c), XPBD (solver/xpbd.c) or DIRECT (solver/direct.c).
#ifndef SINEW_SOLVER_H
#define SINEW_SOLVER_H

#include "sinew/types.h"

typedef struct sn_world sn_world;

bool solver_supported(sn_solver solver);
// Before a step changes anything: grow the solver's own scratch (XPBD, DIRECT) and, for DIRECT, redo
// the factorisation's analysis when the joint graph changed. SN_ERR_NO_MEMORY leaves the world as it was.
sn_error solver_prepare(sn_world* world);
// Free the solvers' own scratch (world destruction).
void solver_release(sn_world* world);
// Before the first substep: zero the joints' accumulated impulses.
void solver_begin_step(sn_world* world);
// One complete solve of length h with the world's solver.
void solver_substep(sn_world* world, double h);
// After the last substep: clear applied forces.
void solver_end_step(sn_world* world, double dt);

#endif
