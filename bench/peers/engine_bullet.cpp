// Bullet (Debian's libbullet-dev 3.24, its float64 libraries: double precision like the others) as a peer:
// maximal bodies in a btDiscreteDynamicsWorld with the sequential-impulse solver; articulations (C8
// reduced, the gripper) as btMultiBody in a btMultiBodyDynamicsWorld with its btMultiBodyConstraintSolver.
// One stepSimulation(dt, 0) per step: a single internal step of exactly dt, no interpolation.
//
// Settings, Bullet's defaults unless named here (btContactSolverInfo, btDefaultCollisionConfiguration):
//   10 solver iterations, contact ERP 0.2 (erp2), split impulse on (threshold -0.04 m), warm starting 0.85,
//   SOLVER_USE_WARMSTARTING | SOLVER_SIMD (one friction direction per point, along the sliding velocity),
//   restitution threshold 0.2 m/s, no global CFM: read back and printed. Dbvt broadphase, the default
//   collision dispatcher (box-box by its dBoxBox port, convex-plane with perturbation for resting boxes),
//   collision margins the shapes' defaults (0.04 m, or a tenth of the smallest half-extent for small boxes;
//   spheres and capsules are exact), contact breaking threshold 0.02 m.
//   friction and restitution: Bullet multiplies the two objects' coefficients, so every object gets
//   sqrt(mu) and sqrt(e): the product is the scene's mu (and e) for every pair, body-body included.
//   sleeping off (DISABLE_DEACTIVATION; Bullet puts bodies to sleep after 2 s by default): the benchmark
//   measures stepping, not sleeping, as for every engine here.
//   btMultiBody: damping 0 (its default is 0.04 linear and angular; the scene says no damping), gyroscopic
//   term on (default), self-collision on with adjacent links excluded (the scene file), floating base for
//   C8, fixed base for the gripper. Drives: btMultiBodyJointMotor, a velocity constraint whose target is
//   kp (target - q) / dt + kd (0 - qdot) + qdot, with pybullet's POSITION_CONTROL gains kp 0.1, kd 1 and the
//   scene's force limit as its impulse bound (F dt); the scene's stiffness and damping have no
//   counterpart in it. Mimic: btMultiBodyGearConstraint with ratio -1 (q_follower = q_leader) and ERP 0.2.
//   maximal hinges (C8): btHingeConstraint, the linked bodies' collisions disabled.
#include "peer.h"

#include <btBulletDynamicsCommon.h>

#include <BulletDynamics/Featherstone/btMultiBody.h>
#include <BulletDynamics/Featherstone/btMultiBodyConstraintSolver.h>
#include <BulletDynamics/Featherstone/btMultiBodyDynamicsWorld.h>
#include <BulletDynamics/Featherstone/btMultiBodyGearConstraint.h>
#include <BulletDynamics/Featherstone/btMultiBodyJointMotor.h>
#include <BulletDynamics/Featherstone/btMultiBodyLinkCollider.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>
#include <vector>

#ifndef BT_USE_DOUBLE_PRECISION
#error "link Bullet's float64 libraries (pkg-config bullet-float64)"
#endif

namespace {

const double kMotorKp = 0.1; // pybullet's default positionGain
const double kMotorKd = 1.0; // and velocityGain
const double kGearErp = 0.2;

struct Link
{
	btMultiBody* body = nullptr; // null: a maximal rigid body
	int link = -1;               // -1: the base
};

// Members are destroyed in reverse order: the world first (it unregisters the objects it holds), the
// objects next, the collision machinery last.
struct World
{
	const peer_scene* scene = nullptr;
	btDefaultCollisionConfiguration config;
	btCollisionDispatcher dispatcher{ &config };
	btDbvtBroadphase broadphase;
	std::unique_ptr<btSequentialImpulseConstraintSolver> solver;
	std::vector<std::unique_ptr<btCollisionShape>> shapes;
	std::vector<std::unique_ptr<btRigidBody>> rigid; // static and dynamic
	std::vector<std::unique_ptr<btMultiBody>> multibodies;
	std::vector<std::unique_ptr<btMultiBodyLinkCollider>> colliders;
	std::vector<std::unique_ptr<btTypedConstraint>> hinges;
	std::vector<std::unique_ptr<btMultiBodyConstraint>> constraints;
	std::vector<btRigidBody*> body_rigid; // scene index -> rigid body, or null
	std::vector<btCollisionObject*> body_object;
	std::vector<Link> body_link;
	std::vector<btMultiBodyJointMotor*> motor; // scene index -> its drive, or null
	std::unique_ptr<btDiscreteDynamicsWorld> world;
	btMultiBodyDynamicsWorld* multibody_world = nullptr;

	~World()
	{
		if (multibody_world != nullptr)
		{
			for (auto& c : constraints)
			{
				multibody_world->removeMultiBodyConstraint(c.get());
			}
			for (auto& m : multibodies)
			{
				multibody_world->removeMultiBody(m.get());
			}
		}
		if (world)
		{
			for (auto& h : hinges)
			{
				world->removeConstraint(h.get());
			}
			for (auto& c : colliders)
			{
				world->removeCollisionObject(c.get());
			}
			for (auto& r : rigid)
			{
				world->removeRigidBody(r.get());
			}
		}
		world.reset();
	}
};

btVector3 vec(const double v[3])
{
	return btVector3(v[0], v[1], v[2]);
}

btQuaternion quat(const double q[4])
{
	return btQuaternion(q[1], q[2], q[3], q[0]); // Bullet's order is (x, y, z, w)
}

btCollisionShape* make_shape(World& w, const peer_body& b)
{
	btCollisionShape* shape = nullptr;
	switch (b.geom)
	{
		case PEER_BOX:
			shape = new btBoxShape(btVector3(b.half[0], b.half[1], b.half[2]));
			break;
		case PEER_SPHERE:
			shape = new btSphereShape(b.half[0]);
			break;
		case PEER_CAPSULE:
			shape = new btCapsuleShapeX(b.half[0], 2.0 * b.half[1]);
			break;
	}
	w.shapes.emplace_back(shape);
	return shape;
}

void set_material(btCollisionObject* o, double friction, double restitution)
{
	// Bullet's combined friction and restitution are the products of the two objects'.
	o->setFriction(std::sqrt(friction));
	o->setRestitution(std::sqrt(restitution));
}

btRigidBody* add_rigid(World& w, double mass, btCollisionShape* shape, const btVector3& inertia,
					   const btTransform& pose, double friction, double restitution, int index)
{
	btRigidBody::btRigidBodyConstructionInfo info(mass, nullptr, shape, inertia);
	info.m_startWorldTransform = pose;
	auto* body = new btRigidBody(info);
	w.rigid.emplace_back(body);
	set_material(body, friction, restitution);
	body->setActivationState(DISABLE_DEACTIVATION);
	body->setUserIndex(index);
	w.world->addRigidBody(body);
	return body;
}

// One articulation as a btMultiBody: its bodies (parents first) with the first as the base, floating, or
// a fixed dummy base at the world when the first hangs from the world.
bool add_multibody(World& w, const peer_scene* s, int articulation)
{
	std::vector<int> members;
	for (int i = 0; i < s->body_count; ++i)
	{
		if (s->bodies[i].articulation == articulation)
		{
			members.push_back(i);
		}
	}
	for (int i : members)
	{
		const double* q = s->bodies[i].q;
		if (q[0] != 1.0 || q[1] != 0.0 || q[2] != 0.0 || q[3] != 0.0)
		{
			return false; // the scenes' articulations start unrotated; nothing else is needed
		}
	}
	const peer_body& root = s->bodies[members[0]];
	bool fixed = root.parent == PEER_WORLD;
	int link_count = (int)members.size() - (fixed ? 0 : 1);
	btMultiBody* mb;
	btVector3 base_pos;
	if (fixed)
	{
		base_pos = vec(root.anchor);
		mb = new btMultiBody(link_count, 1.0, btVector3(1, 1, 1), true, false);
	}
	else
	{
		base_pos = vec(root.p);
		mb = new btMultiBody(link_count, root.mass, vec(root.inertia), false, false);
	}
	w.multibodies.emplace_back(mb);
	std::vector<int> link_of(s->body_count, -2); // scene index -> link index (-1 base)
	if (!fixed)
	{
		link_of[members[0]] = -1;
	}
	int next = 0;
	for (size_t k = fixed ? 0 : 1; k < members.size(); ++k)
	{
		int i = members[k];
		const peer_body& b = s->bodies[i];
		int parent = b.parent >= 0 ? link_of[b.parent] : -1;
		btVector3 parent_p = b.parent >= 0 ? vec(s->bodies[b.parent].p) : base_pos;
		btVector3 to_pivot = vec(b.anchor) - parent_p, pivot_to_com = vec(b.p) - vec(b.anchor);
		if (b.joint == PEER_JOINT_HINGE)
		{
			mb->setupRevolute(next, b.mass, vec(b.inertia), parent, btQuaternion::getIdentity(), vec(b.axis), to_pivot,
							  pivot_to_com, true);
		}
		else
		{
			mb->setupPrismatic(next, b.mass, vec(b.inertia), parent, btQuaternion::getIdentity(), vec(b.axis), to_pivot,
							   pivot_to_com, true);
		}
		link_of[i] = next++;
	}
	mb->finalizeMultiDof();
	mb->setBasePos(base_pos);
	mb->setWorldToBaseRot(btQuaternion::getIdentity());
	mb->setLinearDamping(0.0);
	mb->setAngularDamping(0.0);
	mb->setHasSelfCollision(true);
	mb->setCanSleep(false);
	w.multibody_world->addMultiBody(mb);
	for (int i : members)
	{
		const peer_body& b = s->bodies[i];
		auto* col = new btMultiBodyLinkCollider(mb, link_of[i]);
		w.colliders.emplace_back(col);
		col->setCollisionShape(make_shape(w, b));
		col->setWorldTransform(btTransform(btQuaternion::getIdentity(), vec(b.p)));
		set_material(col, b.friction, b.restitution);
		col->setUserIndex(i);
		col->setActivationState(DISABLE_DEACTIVATION);
		w.world->addCollisionObject(col, btBroadphaseProxy::DefaultFilter, btBroadphaseProxy::AllFilter);
		if (link_of[i] == -1)
		{
			mb->setBaseCollider(col);
		}
		else
		{
			mb->getLink(link_of[i]).m_collider = col;
		}
		w.body_link[i] = Link{ mb, link_of[i] };
		w.body_object[i] = col;
	}
	for (int i : members)
	{
		const peer_body& b = s->bodies[i];
		if (b.drive.enabled)
		{
			auto* motor = new btMultiBodyJointMotor(mb, link_of[i], 0.0, b.drive.max_force * s->dt);
			motor->setPositionTarget(b.drive.target, kMotorKp);
			motor->setVelocityTarget(0.0, kMotorKd);
			w.constraints.emplace_back(motor);
			w.multibody_world->addMultiBodyConstraint(motor);
			w.motor[i] = motor;
		}
		if (b.mimic_of >= 0)
		{
			// Rows qdot_a + ratio qdot_b = 0: with a the follower and ratio -1, q_follower = q_leader.
			auto* gear = new btMultiBodyGearConstraint(mb, link_of[i], mb, link_of[b.mimic_of], btVector3(0, 0, 0),
													   btVector3(0, 0, 0), btMatrix3x3::getIdentity(),
													   btMatrix3x3::getIdentity());
			gear->setGearRatio(-1.0);
			gear->setErp(kGearErp);
			w.constraints.emplace_back(gear);
			w.multibody_world->addMultiBodyConstraint(gear);
		}
	}
	return true;
}

const char* version()
{
	static char text[16];
	std::snprintf(text, sizeof(text), "%d.%02d", BT_BULLET_VERSION / 100, BT_BULLET_VERSION % 100);
	return text;
}

void describe()
{
	btContactSolverInfo info;
	std::printf("#   bullet: float64; btSequentialImpulseConstraintSolver (btMultiBodyConstraintSolver for\n"
				"#   articulations), %d iterations, erp2 %.2f, split impulse %d (threshold %.2f m), warm start %.2f,\n"
				"#   solver mode %d, restitution threshold %.2f m/s, global CFM %g (defaults, read back); Dbvt\n"
				"#   broadphase, default dispatcher, default margins; each object sqrt(mu) and sqrt(e) (Bullet\n"
				"#   multiplies them); sleeping off; btMultiBody damping 0, self-collision on, motors with\n"
				"#   pybullet's POSITION_CONTROL gains (kp %.1f, kd %.1f) and impulse F dt, gear ratio -1 for\n"
				"#   the mimic; one stepSimulation(dt, 0) per step.\n",
				info.m_numIterations, info.m_erp2, info.m_splitImpulse, info.m_splitImpulsePenetrationThreshold,
				info.m_warmstartingFactor, info.m_solverMode, info.m_restitutionVelocityThreshold, info.m_globalCfm,
				kMotorKp, kMotorKd);
}

void* create_world(const peer_scene* s, char* why, size_t why_size)
{
	auto w = std::make_unique<World>();
	w->scene = s;
	if (s->reduced)
	{
		auto* solver = new btMultiBodyConstraintSolver();
		w->solver.reset(solver);
		auto* world = new btMultiBodyDynamicsWorld(&w->dispatcher, &w->broadphase, solver, &w->config);
		w->multibody_world = world;
		w->world.reset(world);
	}
	else
	{
		w->solver = std::make_unique<btSequentialImpulseConstraintSolver>();
		w->world =
			std::make_unique<btDiscreteDynamicsWorld>(&w->dispatcher, &w->broadphase, w->solver.get(), &w->config);
	}
	w->world->setGravity(btVector3(0, 0, -PEER_GRAVITY));
	w->body_rigid.assign(s->body_count, nullptr);
	w->body_object.assign(s->body_count, nullptr);
	w->body_link.assign(s->body_count, Link{});
	w->motor.assign(s->body_count, nullptr);
	for (int i = 0; i < s->plane_count; ++i)
	{
		const peer_plane& p = s->planes[i];
		auto* shape = new btStaticPlaneShape(vec(p.n), 0.0);
		w->shapes.emplace_back(shape);
		add_rigid(*w, 0.0, shape, btVector3(0, 0, 0), btTransform::getIdentity(), p.friction, p.restitution, -1);
	}
	for (int i = 0; i < s->wall_count; ++i)
	{
		const peer_static_box& b = s->walls[i];
		auto* shape = new btBoxShape(vec(b.half));
		w->shapes.emplace_back(shape);
		add_rigid(*w, 0.0, shape, btVector3(0, 0, 0), btTransform(btQuaternion::getIdentity(), vec(b.p)), b.friction,
				  b.restitution, -1);
	}
	for (int i = 0; i < s->body_count; ++i)
	{
		const peer_body& b = s->bodies[i];
		if (s->reduced && b.articulation >= 0)
		{
			continue;
		}
		btRigidBody* body = add_rigid(*w, b.mass, make_shape(*w, b), vec(b.inertia), btTransform(quat(b.q), vec(b.p)),
									  b.friction, b.restitution, i);
		w->body_rigid[i] = body;
		w->body_object[i] = body;
	}
	if (s->reduced)
	{
		for (int a = 0; a < s->articulation_count; ++a)
		{
			if (!add_multibody(*w, s, a))
			{
				std::snprintf(why, why_size, "rotated_links");
				return nullptr;
			}
		}
	}
	else
	{
		if (s->needs_mimic)
		{
			std::snprintf(why, why_size, "maximal_mimic_not_built");
			return nullptr;
		}
		for (int i = 0; i < s->body_count; ++i)
		{
			const peer_body& b = s->bodies[i];
			if (b.joint == PEER_JOINT_NONE)
			{
				continue;
			}
			if (b.joint != PEER_JOINT_HINGE || b.parent < 0)
			{
				std::snprintf(why, why_size, "maximal_joint_not_built");
				return nullptr;
			}
			btRigidBody* pa = w->body_rigid[b.parent];
			btRigidBody* pb = w->body_rigid[i];
			btTransform ta = pa->getWorldTransform().inverse(), tb = pb->getWorldTransform().inverse();
			btVector3 anchor = vec(b.anchor), axis = vec(b.axis);
			auto* hinge =
				new btHingeConstraint(*pa, *pb, ta * anchor, tb * anchor, ta.getBasis() * axis, tb.getBasis() * axis);
			w->hinges.emplace_back(hinge);
			w->world->addConstraint(hinge, true);
		}
	}
	return w.release();
}

} // namespace

extern "C" {

static void* create(const peer_scene* s, char* why, size_t why_size)
{
	try
	{
		return create_world(s, why, why_size);
	} catch (const std::bad_alloc&)
	{
		std::snprintf(why, why_size, "out_of_memory");
		return nullptr;
	}
}

static void step(void* world)
{
	World* w = static_cast<World*>(world);
	w->world->stepSimulation(w->scene->dt, 0);
}

static void state(void* world, int body, peer_state* out)
{
	World* w = static_cast<World*>(world);
	const btTransform& t = w->body_object[body]->getWorldTransform();
	btVector3 v, omega;
	if (btRigidBody* r = w->body_rigid[body])
	{
		v = r->getLinearVelocity();
		omega = r->getAngularVelocity();
	}
	else
	{
		const Link& l = w->body_link[body];
		if (l.link < 0)
		{
			v = l.body->getBaseVel();
			omega = l.body->getBaseOmega();
		}
		else
		{
			// Each link's velocities in its own frame (index 0 is the base), turned into the world's.
			std::vector<btVector3> om(l.body->getNumLinks() + 1), vel(l.body->getNumLinks() + 1);
			l.body->compTreeLinkVelocities(om.data(), vel.data());
			v = t.getBasis() * vel[l.link + 1];
			omega = t.getBasis() * om[l.link + 1];
		}
	}
	btQuaternion q = t.getRotation();
	for (int k = 0; k < 3; ++k)
	{
		out->p[k] = t.getOrigin()[k];
		out->v[k] = v[k];
		out->w[k] = omega[k];
	}
	out->q[0] = q.w();
	out->q[1] = q.x();
	out->q[2] = q.y();
	out->q[3] = q.z();
}

static void contacts(void* world, peer_contacts* out)
{
	World* w = static_cast<World*>(world);
	out->count = 0;
	out->penetration = 0.0;
	int n = w->dispatcher.getNumManifolds();
	for (int m = 0; m < n; ++m)
	{
		const btPersistentManifold* manifold = w->dispatcher.getManifoldByIndexInternal(m);
		for (int p = 0; p < manifold->getNumContacts(); ++p)
		{
			const btManifoldPoint& pt = manifold->getContactPoint(p);
			if (pt.getDistance() <= manifold->getContactProcessingThreshold())
			{
				out->count++;
				out->penetration = std::fmax(out->penetration, -pt.getDistance());
			}
		}
	}
}

static void contact_force(void* world, int body, double f[3])
{
	World* w = static_cast<World*>(world);
	btVector3 sum(0, 0, 0);
	int n = w->dispatcher.getNumManifolds();
	for (int m = 0; m < n; ++m)
	{
		const btPersistentManifold* manifold = w->dispatcher.getManifoldByIndexInternal(m);
		// The normal on B points toward A: the impulses push body 0 (A) along it.
		double sign = manifold->getBody0()->getUserIndex() == body ? 1.0
			: manifold->getBody1()->getUserIndex() == body         ? -1.0
																   : 0.0;
		for (int p = 0; p < manifold->getNumContacts(); ++p)
		{
			const btManifoldPoint& pt = manifold->getContactPoint(p);
			sum += sign *
				(pt.m_normalWorldOnB * pt.getAppliedImpulse() + pt.m_lateralFrictionDir1 * pt.m_appliedImpulseLateral1 +
				 pt.m_lateralFrictionDir2 * pt.m_appliedImpulseLateral2);
		}
	}
	for (int k = 0; k < 3; ++k)
	{
		f[k] = sum[k] / w->scene->dt;
	}
}

static void set_target(void* world, int body, double target)
{
	World* w = static_cast<World*>(world);
	if (w->motor[body] != nullptr)
	{
		w->motor[body]->setPositionTarget(target, kMotorKp);
	}
}

static double drive_force(void* world, int body)
{
	World* w = static_cast<World*>(world);
	return w->motor[body] != nullptr ? w->motor[body]->getAppliedImpulse(0) / w->scene->dt : 0.0;
}

static const char* warnings(void*)
{
	return "";
}

static void destroy(void* world)
{
	delete static_cast<World*>(world);
}

const peer_engine peer_bullet = { "bullet", version,       describe,   create,      step,     state,
								  contacts, contact_force, set_target, drive_force, warnings, destroy };

} // extern "C"
