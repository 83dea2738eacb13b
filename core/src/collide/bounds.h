// Bounding boxes of shapes at a pose (bounds.c).
#ifndef SINEW_COLLIDE_BOUNDS_H
#define SINEW_COLLIDE_BOUNDS_H

#include "collide/geometry.h"

// Half-width of the box given to an unbounded plane along axes its normal does not close off, m. Large
// enough to hold any shape within COLLIDE_MAX_SIZE of the origin a million times over, small enough that
// its surface area (about 4e24 m^2) stays finite. The world should keep planes out of its tree (a
// plane's box would swamp the surface-area heuristic of any node above it) and pair them with every
// moving proxy whose box reaches below them instead.
#define COLLIDE_PLANE_EXTENT 1.0e12

// The world-space box of shape placed at xf, grown by margin (m, >= 0) on every side. Tight for
// spheres, capsules, boxes, cylinders and hulls (their exact extents along the world axes); for a mesh,
// the rotated box of its local bounds. A plane's box is COLLIDE_PLANE_EXTENT wide except along a world
// axis its normal lies on, where it ends at the plane.
collide_aabb collide_shape_aabb(const collide_shape* shape, sn_transform xf, double margin);

#endif
