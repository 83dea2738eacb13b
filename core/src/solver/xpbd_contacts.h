// Contacts in XPBD worlds (Mueller et al. 2020): the contact constraints of contact/solver.h between maximal
// bodies and the static world, solved in xpbd.c's substeps as position constraints with static friction, and
// with dynamic friction and restitution in the velocity pass. The derivation and the choices (slop, deep
// overlaps, soft contacts) are at the top of xpbd_contacts.c. Contacts with an articulation link side are
// not solved here: the link pass of contact/solver.c takes them.
#ifndef SINEW_XPBD_CONTACTS_H
#define SINEW_XPBD_CONTACTS_H

#include <stdbool.h>

typedef struct sn_world sn_world;

// Whether the step has contacts for the XPBD substeps (after contact_solver_build); also points each
// constraint's body sides at their solver slots (after body_prepare_solver_slots).
bool xpbd_contacts_prepare(sn_world* world);
// Start an XPBD substep of hx, at the poses and velocities it starts from (before integration): each
// point's target separation and approach speed; the multipliers restart from zero.
void xpbd_contacts_begin_substep(sn_world* world, double hx);
// One Gauss-Seidel sweep of position corrections over the contacts (normals, then static friction, per
// manifold), in creation order or in reverse.
void xpbd_contacts_position_sweep(sn_world* world, double hx, bool backward);
// The velocity pass after velocities are derived: restitution (or the normal speed brought to rest),
// damping of soft contacts, dynamic friction.
void xpbd_contacts_velocity_pass(sn_world* world, double hx);

#endif
