// Mass properties of shapes from a density, and of compounds (mass.c has the derivations).
#ifndef SINEW_COLLIDE_MASS_H
#define SINEW_COLLIDE_MASS_H

#include "collide/geometry.h"

typedef struct collide_mass
{
	double mass;      // kg
	sn_vec3 center;   // centre of mass in the shape's (or compound's) frame, m
	sn_mat33 inertia; // about the centre of mass, in the frame's axes, kg*m^2
} collide_mass;

// Mass properties of a solid shape of uniform density (kg/m^3, finite and > 0). Exact closed forms for
// the primitives, the divergence theorem for hulls. Errors with a detail line: SN_ERR_NOT_FINITE,
// SN_ERR_NEGATIVE_VALUE, SN_ERR_INVALID_ARGUMENT (zero density, or a shape collide_shape_check rejects),
// SN_ERR_UNSUPPORTED (a mesh or a plane: static geometry, no inside), SN_ERR_NOT_FINITE (the mass
// overflows). *out is written only on success.
sn_error collide_mass_compute(const collide_shape* shape, double density, collide_mass* out, char* detail,
							  size_t detail_capacity);

// The mass properties of count parts, part i given in its own frame which poses[i] places in the
// compound's frame (a shape's local pose on a body). Parallel-axis theorem about the combined centre.
// Parts of zero mass add nothing; with no mass at all the result is zero.
collide_mass collide_mass_combine(const collide_mass* parts, const sn_transform* poses, int count);

#endif
