// PGS and TGS, the sequential-impulse schemes for maximal coordinates (derivation in pgs_tgs.c). Each
// runs one solve of length h over the world's joints and, in the same sweeps, its articulations' rows.
#ifndef SINEW_PGS_TGS_H
#define SINEW_PGS_TGS_H

typedef struct sn_world sn_world;

// One PGS solve of length h: velocities, position sweeps, positions, velocity sweeps.
void pgs_substep(sn_world* world, double h);
// One TGS solve of length h in position_iterations sub-advances, then the velocity sweeps.
void tgs_substep(sn_world* world, double h);

#endif
