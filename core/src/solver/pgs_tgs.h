// PGS and TGS, the sequential-impulse schemes for maximal coordinates (derivation in pgs_tgs.c). Each
// runs one solve of length h over the world's joints and, in the same sweeps, its articulations' rows.
#ifndef SINEW_PGS_TGS_H
#define SINEW_PGS_TGS_H

typedef struct sn_world sn_world;

// One PGS solve of length h: velocities, position sweeps, positions, velocity sweeps.
void pgs_substep(sn_world* world, double h);
// One TGS solve of length h in position_iterations sub-advances, then the velocity sweeps.
void tgs_substep(sn_world* world, double h);

// XPBD and DIRECT worlds leave the joints that hold an articulation link to the articulations' TGS pass
// (contact/solver.c contact_link_pass_tgs): per window of length rho, their rows are built at the poses
// of the window, warm-started and swept once (links' slots from the articulation solve); then the
// velocity sweeps; then their impulses go to the joints (warm starts and forces out).
void tgs_link_joints_window(sn_world* world, double rho);
void tgs_link_joints_velocity(sn_world* world, double rho);
void tgs_link_joints_end(sn_world* world, double rho);

#endif
