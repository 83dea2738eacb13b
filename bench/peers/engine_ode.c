// ODE (Debian's libode-dev 0.16, double precision) as a peer: rigid bodies in a hash space, contacts from
// dCollide in the near callback of dSpaceCollide, stepped with dWorldQuickStep.
//
// Settings, ODE's defaults unless named here (the ODE manual):
//   stepper dWorldQuickStep (the iterative SOR-LCP the manual advises for large systems; dWorldStep's
//   dense LCP is cubic in the rows and would not step C6 or C7 at a useful rate), its default 20
//   iterations and over-relaxation 1.3; world ERP 0.2 and CFM 1e-10 (the double-precision defaults, read
//   back and printed); contact surface layer 0 and no cap on the correcting velocity (the defaults);
//   no auto-disable (the default).
//   contacts: up to 8 points per pair (what dBoxBox can return; ODE's box-stacking demo asks for 8), each a
//   contact joint with dContactApprox1 so that mu is a Coulomb coefficient (without it ODE's mu is a force
//   limit in newtons), two friction directions (ODE's friction pyramid); restitution by dContactBounce with
//   the scene's e and a 0.2 m/s threshold (ODE has none of its own; 0.2 m/s is Bullet's default); the
//   contacts' ERP and CFM are the world's. Friction and restitution of a pair: the geometric mean of the two
//   shapes' (every shape of a scene has the same values, so the rule does not change a figure).
//   collision: dHashSpace with its default levels; a jointed pair of bodies does not collide (the scene
//   file's adjacent links); static shapes (planes, walls) are geoms without a body.
//   joints: dHinge (C8 maximal) at the scene's anchor and axis, no limits.
// Cannot express: articulations (ODE has maximal bodies only: C8 reduced and the gripper, whose mimic
// coupling of two sliders has no ODE joint, are not run).
#include "peer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ode/ode.h>

#ifndef PEER_ODE_VERSION
#define PEER_ODE_VERSION "unknown"
#endif

enum
{
	MAX_PAIR_CONTACTS = 8,
	MAX_FEEDBACK = 256, // C1's contacts: a box on a plane has at most 4
};

#define BOUNCE_THRESHOLD 0.2 // m/s

typedef struct material
{
	double friction, restitution;
	int body; // scene index, -1 for static shapes
} material;

typedef struct ode_world
{
	dWorldID world;
	dSpaceID space;
	dJointGroupID group;
	const peer_scene* scene;
	dBodyID* bodies;
	material* materials; // one per geom: the bodies', then the static shapes'
	int contact_count;
	double penetration;
	bool feedback_on;
	int feedback_count;
	dJointFeedback feedback[MAX_FEEDBACK];
	int feedback_body[MAX_FEEDBACK][2];
} ode_world;

static bool initialised;

static void init_once(void)
{
	if (!initialised)
	{
		dInitODE2(0);
		dAllocateODEDataForThread(dAllocateMaskAll);
		initialised = true;
	}
}

static const char* version(void)
{
	return PEER_ODE_VERSION;
}

static void describe(void)
{
	init_once();
	dWorldID w = dWorldCreate();
	printf("#   ode: dWorldQuickStep, %d iterations, SOR w %.2f, ERP %.2f, CFM %.1e (ODE's defaults, read back);\n"
		   "#   dHashSpace; up to %d contacts per pair, dContactApprox1 (mu a Coulomb coefficient), bounce\n"
		   "#   threshold %.1f m/s; surface layer 0; no auto-disable; hinges for C8 maximal. Configuration:\n"
		   "#   %s\n"
		   "#   No articulations (C8 reduced and the gripper not run).\n",
		   dWorldGetQuickStepNumIterations(w), dWorldGetQuickStepW(w), dWorldGetERP(w), dWorldGetCFM(w),
		   MAX_PAIR_CONTACTS, BOUNCE_THRESHOLD, dGetConfiguration());
	dWorldDestroy(w);
}

static void near_callback(void* data, dGeomID a, dGeomID b)
{
	ode_world* w = data;
	dBodyID ba = dGeomGetBody(a), bb = dGeomGetBody(b);
	if (ba == NULL && bb == NULL)
	{
		return;
	}
	if (ba != NULL && bb != NULL && dAreConnectedExcluding(ba, bb, dJointTypeContact))
	{
		return;
	}
	dContact contact[MAX_PAIR_CONTACTS];
	int n = dCollide(a, b, MAX_PAIR_CONTACTS, &contact[0].geom, sizeof(dContact));
	if (n <= 0)
	{
		return;
	}
	const material* ma = dGeomGetData(a);
	const material* mb = dGeomGetData(b);
	double mu = sqrt(ma->friction * mb->friction), e = sqrt(ma->restitution * mb->restitution);
	for (int i = 0; i < n; ++i)
	{
		dContact* c = &contact[i];
		memset(&c->surface, 0, sizeof(c->surface));
		c->surface.mode = dContactApprox1;
		c->surface.mu = mu;
		if (e > 0.0)
		{
			c->surface.mode |= dContactBounce;
			c->surface.bounce = e;
			c->surface.bounce_vel = BOUNCE_THRESHOLD;
		}
		dJointID j = dJointCreateContact(w->world, w->group, c);
		dJointAttach(j, ba, bb);
		w->contact_count++;
		w->penetration = fmax(w->penetration, c->geom.depth);
		if (w->feedback_on && w->feedback_count < MAX_FEEDBACK)
		{
			int k = w->feedback_count++;
			dJointSetFeedback(j, &w->feedback[k]);
			w->feedback_body[k][0] = ma->body;
			w->feedback_body[k][1] = mb->body;
		}
	}
}

static void destroy(void* world)
{
	ode_world* w = world;
	if (w == NULL)
	{
		return;
	}
	if (w->group != NULL)
	{
		dJointGroupDestroy(w->group);
	}
	if (w->space != NULL)
	{
		dSpaceDestroy(w->space); // destroys its geoms (the space's cleanup mode is on by default)
	}
	if (w->world != NULL)
	{
		dWorldDestroy(w->world); // destroys its bodies and joints
	}
	free(w->bodies);
	free(w->materials);
	free(w);
}

static void* create(const peer_scene* s, char* why, size_t why_size)
{
	if (s->reduced || s->needs_mimic)
	{
		snprintf(why, why_size, "no_articulations");
		return NULL;
	}
	init_once();
	ode_world* w = calloc(1, sizeof(ode_world));
	int geoms = s->body_count + s->plane_count + s->wall_count;
	if (w == NULL || (w->bodies = calloc((size_t)s->body_count, sizeof(dBodyID))) == NULL ||
		(w->materials = calloc((size_t)geoms, sizeof(material))) == NULL)
	{
		destroy(w);
		snprintf(why, why_size, "out_of_memory");
		return NULL;
	}
	w->scene = s;
	w->feedback_on = s->wants_forces;
	w->world = dWorldCreate();
	w->space = dHashSpaceCreate(NULL);
	w->group = dJointGroupCreate(0);
	dWorldSetGravity(w->world, 0, 0, -PEER_GRAVITY);
	int g = 0;
	for (int i = 0; i < s->body_count; ++i)
	{
		const peer_body* b = &s->bodies[i];
		dBodyID body = dBodyCreate(w->world);
		dMass mass;
		dMassSetZero(&mass);
		dMassSetParameters(&mass, b->mass, 0, 0, 0, b->inertia[0], b->inertia[1], b->inertia[2], 0, 0, 0);
		dBodySetMass(body, &mass);
		dBodySetPosition(body, b->p[0], b->p[1], b->p[2]);
		dQuaternion q = { b->q[0], b->q[1], b->q[2], b->q[3] };
		dBodySetQuaternion(body, q);
		dGeomID geom = NULL;
		switch (b->geom)
		{
			case PEER_BOX:
				geom = dCreateBox(w->space, 2 * b->half[0], 2 * b->half[1], 2 * b->half[2]);
				break;
			case PEER_SPHERE:
				geom = dCreateSphere(w->space, b->half[0]);
				break;
			case PEER_CAPSULE:
				geom = dCreateCapsule(w->space, b->half[0], 2 * b->half[1]);
				break;
		}
		dGeomSetBody(geom, body);
		if (b->geom == PEER_CAPSULE)
		{
			// ODE's capsule lies along its z; the scene's along the body's x: a quarter turn about y.
			dQuaternion turn = { sqrt(0.5), 0, sqrt(0.5), 0 };
			dGeomSetOffsetQuaternion(geom, turn);
		}
		w->materials[g] = (material){ b->friction, b->restitution, i };
		dGeomSetData(geom, &w->materials[g++]);
		w->bodies[i] = body;
	}
	for (int i = 0; i < s->plane_count; ++i)
	{
		const peer_plane* p = &s->planes[i];
		dGeomID geom = dCreatePlane(w->space, p->n[0], p->n[1], p->n[2], 0.0);
		w->materials[g] = (material){ p->friction, p->restitution, -1 };
		dGeomSetData(geom, &w->materials[g++]);
	}
	for (int i = 0; i < s->wall_count; ++i)
	{
		const peer_static_box* b = &s->walls[i];
		dGeomID geom = dCreateBox(w->space, 2 * b->half[0], 2 * b->half[1], 2 * b->half[2]);
		dGeomSetPosition(geom, b->p[0], b->p[1], b->p[2]);
		w->materials[g] = (material){ b->friction, b->restitution, -1 };
		dGeomSetData(geom, &w->materials[g++]);
	}
	for (int i = 0; i < s->body_count; ++i)
	{
		const peer_body* b = &s->bodies[i];
		if (b->joint == PEER_JOINT_NONE)
		{
			continue;
		}
		dBodyID parent = b->parent >= 0 ? w->bodies[b->parent] : NULL;
		dJointID j;
		if (b->joint == PEER_JOINT_HINGE)
		{
			j = dJointCreateHinge(w->world, NULL);
			dJointAttach(j, parent, w->bodies[i]);
			dJointSetHingeAnchor(j, b->anchor[0], b->anchor[1], b->anchor[2]);
			dJointSetHingeAxis(j, b->axis[0], b->axis[1], b->axis[2]);
		}
		else
		{
			j = dJointCreateSlider(w->world, NULL);
			dJointAttach(j, parent, w->bodies[i]);
			dJointSetSliderAxis(j, b->axis[0], b->axis[1], b->axis[2]);
		}
	}
	return w;
}

static void step(void* world)
{
	ode_world* w = world;
	w->contact_count = 0;
	w->penetration = 0.0;
	w->feedback_count = 0;
	dJointGroupEmpty(w->group);
	dSpaceCollide(w->space, w, near_callback);
	dWorldQuickStep(w->world, w->scene->dt);
	// The contact joints stay until the next step, so that their feedback can be read.
}

static void state(void* world, int body, peer_state* out)
{
	ode_world* w = world;
	dBodyID b = w->bodies[body];
	memcpy(out->p, dBodyGetPosition(b), 3 * sizeof(double));
	memcpy(out->q, dBodyGetQuaternion(b), 4 * sizeof(double));
	memcpy(out->v, dBodyGetLinearVel(b), 3 * sizeof(double));
	memcpy(out->w, dBodyGetAngularVel(b), 3 * sizeof(double));
}

static void contacts(void* world, peer_contacts* out)
{
	ode_world* w = world;
	out->count = w->contact_count;
	out->penetration = w->penetration;
}

static void contact_force(void* world, int body, double f[3])
{
	ode_world* w = world;
	f[0] = f[1] = f[2] = 0.0;
	for (int k = 0; k < w->feedback_count; ++k)
	{
		for (int side = 0; side < 2; ++side)
		{
			if (w->feedback_body[k][side] == body)
			{
				const dReal* force = side == 0 ? w->feedback[k].f1 : w->feedback[k].f2;
				for (int j = 0; j < 3; ++j)
				{
					f[j] += force[j];
				}
			}
		}
	}
}

static void set_target(void* world, int body, double target)
{
	(void)world;
	(void)body;
	(void)target;
}

static double drive_force(void* world, int body)
{
	(void)world;
	(void)body;
	return 0.0;
}

static const char* warnings(void* world)
{
	(void)world;
	return "";
}

const peer_engine peer_ode = { "ode",    version,       describe,   create,      step,     state,
							   contacts, contact_force, set_target, drive_force, warnings, destroy };
