// The contact scenes as data (peer.h): C1..C8 exactly as shared/bench/contact-scenes.md defines them, and
// issue 13's gripper, whose geometry the issue leaves open and which is defined here:
//
//   ground   plane z = 0
//   box      0.1 m cube (half-extent 0.05), 0.5 kg, centre (0, 0, 0.05), resting on the ground
//   palm     box half-extents (0.12, 0.03, 0.02), 1 kg, centre (0, 0, 0.14); a slider along +z to the world
//            (the lift) with a position drive: stiffness 1e4 N/m, damping 300 N s/m, force limit 100 N,
//            target 0 until t = 0.5 s, then rising linearly to 0.2 m at t = 1.5 s, then held 5 s
//   fingers  boxes half-extents (0.01, 0.025, 0.05), 0.1 kg, centres (-+0.08, 0, 0.065) (inner faces 0.02 m
//            from the box's sides); each a slider on the palm along the closing direction (+x for the left
//            finger, -x for the right); the left one driven (stiffness 1e4 N/m, damping 20 N s/m, force
//            limit 20 N, target 0.04 m: past the box's side, so the drive saturates and squeezes with 20 N),
//            the right one a mimic of the left (q_right = q_left)
//   friction 0.5 everywhere, restitution 0, gravity -9.81 z; the palm and fingers do not collide with each
//            other (jointed); fingers carry the box by friction: 2 x 0.5 x 20 N = 20 N against its 4.9 N
//
// What is measured (bench_peers.c): the box's rise at the end of the lift, its slip against the palm
// over the 5 s hold, and the rise of the lift drive's force from before the lift (box on the ground) to
// the hold, against the box's weight (the lift is a slider: its arm is 1).
#include "peer.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846
#define MU 0.5 // the scenes' friction unless they say otherwise

static const char* const names[PEER_SCENE_COUNT] = {
	"C1", "C2a", "C2b", "C3", "C4", "C5", "C6", "C7", "C8", "gripper"
};

const char* peer_scene_name(peer_scene_id id)
{
	return (id >= 0 && id < PEER_SCENE_COUNT) ? names[id] : "?";
}

void peer_quat_rotate(const double q[4], const double v[3], double out[3])
{
	// v + 2 w (u x v) + 2 u x (u x v), u the vector part.
	double u[3] = { q[1], q[2], q[3] };
	double t[3] = { 2.0 * (u[1] * v[2] - u[2] * v[1]), 2.0 * (u[2] * v[0] - u[0] * v[2]),
					2.0 * (u[0] * v[1] - u[1] * v[0]) };
	out[0] = v[0] + q[0] * t[0] + (u[1] * t[2] - u[2] * t[1]);
	out[1] = v[1] + q[0] * t[1] + (u[2] * t[0] - u[0] * t[2]);
	out[2] = v[2] + q[0] * t[2] + (u[0] * t[1] - u[1] * t[0]);
}

void peer_quat_between(const double a[3], const double b[3], double out[4])
{
	double c[3] = { a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0] };
	double d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
	double w = 1.0 + d;
	if (w < 1e-12)
	{
		// Opposite: half a turn about any axis normal to a.
		double n[3] = { 0.0, -a[2], a[1] };
		if (fabs(a[0]) < 0.9)
		{
			n[0] = 0.0;
		}
		else
		{
			n[0] = -a[1];
			n[1] = a[0];
			n[2] = 0.0;
		}
		double l = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
		out[0] = 0.0;
		out[1] = n[0] / l;
		out[2] = n[1] / l;
		out[3] = n[2] / l;
		return;
	}
	double l = sqrt(w * w + c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
	out[0] = w / l;
	out[1] = c[0] / l;
	out[2] = c[1] / l;
	out[3] = c[2] / l;
}

double peer_gripper_lift_target(double t)
{
	if (t <= PEER_GRIPPER_LIFT_START)
	{
		return 0.0;
	}
	if (t >= PEER_GRIPPER_LIFT_END)
	{
		return PEER_GRIPPER_LIFT;
	}
	return PEER_GRIPPER_LIFT * (t - PEER_GRIPPER_LIFT_START) / (PEER_GRIPPER_LIFT_END - PEER_GRIPPER_LIFT_START);
}

// ---- building blocks --------------------------------------------------------------------------------------

static peer_body body_base(double mass, double px, double py, double pz)
{
	peer_body b;
	memset(&b, 0, sizeof(b));
	b.mass = mass;
	b.p[0] = px;
	b.p[1] = py;
	b.p[2] = pz;
	b.q[0] = 1.0;
	b.friction = MU;
	b.articulation = -1;
	b.parent = PEER_NO_PARENT;
	b.joint = PEER_JOINT_NONE;
	b.mimic_of = -1;
	return b;
}

// A solid box: m (2 hy)^2 + (2 hz)^2) / 12 about x, and so on (for a cube of half-extent h: m (2h)^2 / 6).
static peer_body box(double hx, double hy, double hz, double mass, double px, double py, double pz)
{
	peer_body b = body_base(mass, px, py, pz);
	b.geom = PEER_BOX;
	b.half[0] = hx;
	b.half[1] = hy;
	b.half[2] = hz;
	b.inertia[0] = mass * (4.0 * hy * hy + 4.0 * hz * hz) / 12.0;
	b.inertia[1] = mass * (4.0 * hx * hx + 4.0 * hz * hz) / 12.0;
	b.inertia[2] = mass * (4.0 * hx * hx + 4.0 * hy * hy) / 12.0;
	return b;
}

// A solid sphere: 2/5 m r^2.
static peer_body ball(double r, double mass, double px, double py, double pz)
{
	peer_body b = body_base(mass, px, py, pz);
	b.geom = PEER_SPHERE;
	b.half[0] = b.half[1] = b.half[2] = r;
	b.inertia[0] = b.inertia[1] = b.inertia[2] = 0.4 * mass * r * r;
	return b;
}

// A solid capsule along x, radius r, core length 2 hl, of total mass m: a solid cylinder and two solid
// hemispheres of one density. About the axis: cylinder m_c r^2 / 2, each hemisphere 2/5 m_h r^2 (half of a
// sphere's). Across it, about the centre: cylinder m_c (3 r^2 + (2 hl)^2) / 12; each hemisphere, its centre
// of mass 3r/8 from its flat face, has 83/320 m_h r^2 about its own centre of mass across the axis (2/5 m_h r^2
// about the face's centre less m_h (3r/8)^2), moved by the parallel-axis theorem to the distance hl + 3r/8.
static peer_body capsule(double r, double hl, double mass, double px, double py, double pz)
{
	peer_body b = body_base(mass, px, py, pz);
	b.geom = PEER_CAPSULE;
	b.half[0] = r;
	b.half[1] = hl;
	b.half[2] = r;
	double vc = PI * r * r * 2.0 * hl, vh = 2.0 / 3.0 * PI * r * r * r; // one hemisphere
	double rho = mass / (vc + 2.0 * vh), mc = rho * vc, mh = rho * vh;
	double axial = 0.5 * mc * r * r + 2.0 * (0.4 * mh * r * r);
	double d = hl + 3.0 * r / 8.0;
	double across = mc * (3.0 * r * r + 4.0 * hl * hl) / 12.0 + 2.0 * (83.0 / 320.0 * mh * r * r + mh * d * d);
	b.inertia[0] = axial;
	b.inertia[1] = across;
	b.inertia[2] = across;
	return b;
}

static void add_plane(peer_scene* s, double nx, double ny, double nz, double friction, double restitution)
{
	peer_plane* p = &s->planes[s->plane_count++];
	p->n[0] = nx;
	p->n[1] = ny;
	p->n[2] = nz;
	p->friction = friction;
	p->restitution = restitution;
}

static bool alloc_bodies(peer_scene* s, int n)
{
	s->bodies = calloc((size_t)n, sizeof(peer_body));
	s->body_count = 0;
	return s->bodies != NULL;
}

// ---- C1..C8 -----------------------------------------------------------------------------------------------

// C2 and C4: a plane through the origin with normal (sin a, 0, cos a) and a body touching it at rest, its
// centre `lift` m along the normal, turned by a about +y (face down on the plane for the box).
static void incline(peer_scene* s, double angle, peer_body b, double lift, double friction)
{
	double n[3] = { sin(angle), 0.0, cos(angle) };
	add_plane(s, n[0], n[1], n[2], friction, 0.0);
	for (int k = 0; k < 3; ++k)
	{
		b.p[k] = lift * n[k];
	}
	b.q[0] = cos(0.5 * angle);
	b.q[2] = sin(0.5 * angle);
	b.friction = friction;
	s->bodies[s->body_count++] = b;
}

static uint32_t jitter_hash(uint32_t index, uint32_t salt)
{
	uint32_t h = index * 2654435761u + salt * 40503u;
	h ^= h >> 15;
	h *= 2246822519u;
	h ^= h >> 13;
	return h;
}

// C7's deterministic jitter (m), as the scene file gives it.
static double jitter(uint32_t index, uint32_t salt)
{
	return 0.01 * ((double)(jitter_hash(index, salt) % 10001u) / 10000.0 - 0.5);
}

static void c8(peer_scene* s, bool reduced)
{
	add_plane(s, 0, 0, 1, MU, 0.0);
	const double r = 0.02, spacing = 0.1, mass = 0.1;
	for (int a = 0; a < 10; ++a)
	{
		for (int b = 0; b < 10; ++b)
		{
			int chain = 10 * a + b, first = s->body_count;
			double cx = (a - 4.5) * 1.3, cy = (b - 4.5) * 0.15, cz = 0.5;
			for (int l = 0; l < 10; ++l)
			{
				peer_body link = capsule(r, 0.5 * spacing, mass, cx + (l - 4.5) * spacing, cy, cz);
				link.articulation = chain;
				if (l > 0)
				{
					link.parent = first + l - 1;
					link.joint = PEER_JOINT_HINGE;
					link.anchor[0] = link.p[0] - 0.5 * spacing;
					link.anchor[1] = cy;
					link.anchor[2] = cz;
					// About y for odd l, about z for even l.
					link.axis[(l % 2 == 1) ? 1 : 2] = 1.0;
				}
				s->bodies[s->body_count++] = link;
			}
		}
	}
	s->articulation_count = 100;
	s->reduced = reduced;
}

static void gripper(peer_scene* s)
{
	add_plane(s, 0, 0, 1, MU, 0.0);
	peer_body palm = box(0.12, 0.03, 0.02, 1.0, 0.0, 0.0, 0.14);
	palm.articulation = 0;
	palm.parent = PEER_WORLD;
	palm.joint = PEER_JOINT_SLIDER;
	palm.anchor[2] = 0.14;
	palm.axis[2] = 1.0;
	palm.drive = (peer_drive){ true, 1e4, 300.0, 100.0, 0.0 };
	s->bodies[s->body_count++] = palm;
	for (int side = 0; side < 2; ++side)
	{
		double sign = side == 0 ? -1.0 : 1.0; // left finger at -x
		peer_body f = box(0.01, 0.025, 0.05, 0.1, sign * 0.08, 0.0, 0.065);
		f.articulation = 0;
		f.parent = PEER_GRIPPER_PALM;
		f.joint = PEER_JOINT_SLIDER;
		f.anchor[0] = f.p[0];
		f.anchor[2] = f.p[2];
		f.axis[0] = -sign; // closing
		if (side == 0)
		{
			f.drive = (peer_drive){ true, 1e4, 20.0, 20.0, 0.04 };
		}
		else
		{
			f.mimic_of = PEER_GRIPPER_FINGER_L;
		}
		s->bodies[s->body_count++] = f;
	}
	s->bodies[s->body_count++] = box(0.05, 0.05, 0.05, PEER_GRIPPER_BOX_MASS, 0.0, 0.0, 0.05);
	s->articulation_count = 1;
	s->reduced = true;
	s->needs_mimic = true;
}

bool peer_scene_build(peer_scene_id id, double dt, bool reduced, peer_scene* s)
{
	memset(s, 0, sizeof(*s));
	s->id = id;
	s->name = peer_scene_name(id);
	s->dt = dt;
	s->reduced = false;
	int n = 0;
	switch (id)
	{
		case PEER_C1:
		case PEER_C2A:
		case PEER_C2B:
		case PEER_C3:
		case PEER_C4:
			n = 1;
			break;
		case PEER_C5:
			n = 10;
			break;
		case PEER_C6:
			n = 210;
			break;
		case PEER_C7:
			n = 1000;
			break;
		case PEER_C8:
			n = 1000;
			break;
		case PEER_GRIPPER:
			n = 4;
			break;
		default:
			return false;
	}
	if (!alloc_bodies(s, n))
	{
		return false;
	}
	switch (id)
	{
		case PEER_C1:
			s->duration = 2.0;
			s->wants_forces = true;
			add_plane(s, 0, 0, 1, MU, 0.0);
			s->bodies[s->body_count++] = box(0.1, 0.1, 0.1, 1.0, 0.0, 0.0, 0.1);
			break;
		case PEER_C2A:
		case PEER_C2B:
			s->duration = 2.0;
			incline(s, PI / 6.0, box(0.1, 0.1, 0.1, 1.0, 0, 0, 0), 0.1, id == PEER_C2A ? 0.7 : 0.3);
			break;
		case PEER_C3:
			s->duration = 1.2;
			s->needs_restitution = true;
			add_plane(s, 0, 0, 1, MU, 0.5);
			s->bodies[s->body_count] = ball(0.1, 1.0, 0.0, 0.0, 1.1);
			s->bodies[s->body_count++].restitution = 0.5;
			break;
		case PEER_C4:
			s->duration = 2.0;
			incline(s, PI / 9.0, ball(0.1, 1.0, 0, 0, 0), 0.1, 1.0);
			s->bodies[0].q[0] = 1.0; // a sphere: its turn does not matter, start unrotated
			s->bodies[0].q[2] = 0.0;
			break;
		case PEER_C5:
			s->duration = 10.0;
			add_plane(s, 0, 0, 1, MU, 0.0);
			for (int i = 0; i < 10; ++i)
			{
				s->bodies[s->body_count++] = box(0.1, 0.1, 0.1, 1.0, 0.0, 0.0, 0.1 + 0.2 * i);
			}
			break;
		case PEER_C6:
			s->duration = 10.0;
			s->contacts_bound = 3000; // 380 resting and 190 side face pairs of 4 points, the ground's 80
			add_plane(s, 0, 0, 1, MU, 0.0);
			for (int k = 0; k < 20; ++k)
			{
				int row = 20 - k;
				for (int i = 0; i < row; ++i)
				{
					s->bodies[s->body_count++] =
						box(0.1, 0.1, 0.1, 1.0, (i - 0.5 * (row - 1)) * 0.2, 0.0, 0.1 + 0.2 * k);
				}
			}
			break;
		case PEER_C7:
		{
			s->duration = 5.0;
			s->contacts_bound = 4000; // settled: about 6 neighbours of each sphere half its own, and the walls
			add_plane(s, 0, 0, 1, MU, 0.0);
			// Walls 0.1 m thick, z in [0, 1], inner faces at +-0.75, 1.7 m long so the corners are closed.
			const double inner = 0.75, t = 0.05, h = 0.5, len = inner + 2.0 * t;
			const double centres[4][3] = {
				{ inner + t, 0, h }, { -inner - t, 0, h }, { 0, inner + t, h }, { 0, -inner - t, h }
			};
			const double halves[4][3] = { { t, len, h }, { t, len, h }, { len, t, h }, { len, t, h } };
			for (int w = 0; w < 4; ++w)
			{
				peer_static_box* wall = &s->walls[s->wall_count++];
				memcpy(wall->p, centres[w], sizeof(wall->p));
				memcpy(wall->half, halves[w], sizeof(wall->half));
				wall->friction = MU;
			}
			for (uint32_t k = 0; k < 10; ++k)
			{
				for (uint32_t j = 0; j < 10; ++j)
				{
					for (uint32_t i = 0; i < 10; ++i)
					{
						uint32_t idx = 100 * k + 10 * j + i;
						s->bodies[s->body_count++] = ball(0.05, 0.1, ((double)i - 4.5) * 0.12 + jitter(idx, 1),
														  ((double)j - 4.5) * 0.12 + jitter(idx, 2), 0.30 + 0.12 * k);
					}
				}
			}
			break;
		}
		case PEER_C8:
			s->duration = 3.0;
			s->contacts_bound = 3000; // about 1,800 at rest on the ground and on each other
			c8(s, reduced);
			break;
		case PEER_GRIPPER:
			s->duration = PEER_GRIPPER_LIFT_END + PEER_GRIPPER_HOLD;
			gripper(s);
			break;
		default:
			break;
	}
	return true;
}

void peer_scene_free(peer_scene* scene)
{
	free(scene->bodies);
	scene->bodies = NULL;
	scene->body_count = 0;
}
