// The step's inner loop for maximal coordinates: body integration, row building, PGS and TGS.
#ifndef SINEW_SOLVER_H
#define SINEW_SOLVER_H

#include "sinew/types.h"

typedef struct sn_world sn_world;

bool solver_supported(sn_solver solver);
// Before the first substep: zero the joints' accumulated impulses.
void solver_begin_step(sn_world* world);
// One complete solve of length h with the world's solver.
void solver_substep(sn_world* world, double h);
// After the last substep: clear applied forces.
void solver_end_step(sn_world* world, double dt);

#endif
