package lean

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/typedinformer/typedinformer/runtime/cache"
)

// InternPod returns Intern for Pods with the strings of spec and status that
// repeat across Pods interned as well: node, scheduler, service account and
// priority class names, policies, container and volume names, images,
// ports' protocols, environment variables, volume mounts, tolerations,
// host and pod IPs, phase, QoS class, conditions' types and statuses, and
// container statuses' images and image IDs.
func InternPod(in *Interner) cache.TransformFunc[*corev1.Pod] {
	return Intern[*corev1.Pod](in, internPodFields)
}

func internPodFields(p *corev1.Pod, i func(string) string) {
	s := &p.Spec
	s.NodeName, s.SchedulerName, s.ServiceAccountName = i(s.NodeName), i(s.SchedulerName), i(s.ServiceAccountName)
	s.DeprecatedServiceAccount, s.PriorityClassName, s.Hostname, s.Subdomain = i(s.DeprecatedServiceAccount), i(s.PriorityClassName), i(s.Hostname), i(s.Subdomain)
	s.RestartPolicy = corev1.RestartPolicy(i(string(s.RestartPolicy)))
	s.DNSPolicy = corev1.DNSPolicy(i(string(s.DNSPolicy)))
	if s.PreemptionPolicy != nil {
		v := corev1.PreemptionPolicy(i(string(*s.PreemptionPolicy)))
		s.PreemptionPolicy = &v
	}
	internMap(i, s.NodeSelector)
	for k := range s.Containers {
		internContainer(&s.Containers[k], i)
	}
	for k := range s.InitContainers {
		internContainer(&s.InitContainers[k], i)
	}
	for k := range s.Volumes {
		v := &s.Volumes[k]
		v.Name = i(v.Name)
		switch {
		case v.ConfigMap != nil:
			v.ConfigMap.Name = i(v.ConfigMap.Name)
		case v.Secret != nil:
			v.Secret.SecretName = i(v.Secret.SecretName)
		case v.PersistentVolumeClaim != nil:
			v.PersistentVolumeClaim.ClaimName = i(v.PersistentVolumeClaim.ClaimName)
		case v.Projected != nil:
			for n := range v.Projected.Sources {
				src := &v.Projected.Sources[n]
				if src.ConfigMap != nil {
					src.ConfigMap.Name = i(src.ConfigMap.Name)
				}
				if src.ServiceAccountToken != nil {
					src.ServiceAccountToken.Path = i(src.ServiceAccountToken.Path)
				}
				if src.DownwardAPI != nil {
					for m := range src.DownwardAPI.Items {
						it := &src.DownwardAPI.Items[m]
						it.Path = i(it.Path)
						if it.FieldRef != nil {
							it.FieldRef.APIVersion, it.FieldRef.FieldPath = i(it.FieldRef.APIVersion), i(it.FieldRef.FieldPath)
						}
					}
				}
			}
		}
	}
	for k := range s.Tolerations {
		t := &s.Tolerations[k]
		t.Key, t.Value = i(t.Key), i(t.Value)
		t.Operator = corev1.TolerationOperator(i(string(t.Operator)))
		t.Effect = corev1.TaintEffect(i(string(t.Effect)))
	}
	st := &p.Status
	st.Phase = corev1.PodPhase(i(string(st.Phase)))
	st.QOSClass = corev1.PodQOSClass(i(string(st.QOSClass)))
	st.HostIP, st.PodIP = i(st.HostIP), i(st.PodIP)
	for k := range st.HostIPs {
		st.HostIPs[k].IP = i(st.HostIPs[k].IP)
	}
	for k := range st.PodIPs {
		st.PodIPs[k].IP = i(st.PodIPs[k].IP)
	}
	for k := range st.Conditions {
		c := &st.Conditions[k]
		c.Type = corev1.PodConditionType(i(string(c.Type)))
		c.Status = corev1.ConditionStatus(i(string(c.Status)))
		c.Reason = i(c.Reason)
	}
	for _, cs := range [][]corev1.ContainerStatus{st.ContainerStatuses, st.InitContainerStatuses} {
		for k := range cs {
			c := &cs[k]
			c.Name, c.Image, c.ImageID = i(c.Name), i(c.Image), i(c.ImageID)
		}
	}
}

func internContainer(c *corev1.Container, i func(string) string) {
	c.Name, c.Image, c.WorkingDir = i(c.Name), i(c.Image), i(c.WorkingDir)
	c.ImagePullPolicy = corev1.PullPolicy(i(string(c.ImagePullPolicy)))
	c.TerminationMessagePath = i(c.TerminationMessagePath)
	c.TerminationMessagePolicy = corev1.TerminationMessagePolicy(i(string(c.TerminationMessagePolicy)))
	for k := range c.Command {
		c.Command[k] = i(c.Command[k])
	}
	for k := range c.Args {
		c.Args[k] = i(c.Args[k])
	}
	for k := range c.Ports {
		p := &c.Ports[k]
		p.Name = i(p.Name)
		p.Protocol = corev1.Protocol(i(string(p.Protocol)))
	}
	for k := range c.Env {
		e := &c.Env[k]
		e.Name, e.Value = i(e.Name), i(e.Value)
		if e.ValueFrom != nil && e.ValueFrom.FieldRef != nil {
			f := e.ValueFrom.FieldRef
			f.APIVersion, f.FieldPath = i(f.APIVersion), i(f.FieldPath)
		}
	}
	for k := range c.VolumeMounts {
		m := &c.VolumeMounts[k]
		m.Name, m.MountPath, m.SubPath = i(m.Name), i(m.MountPath), i(m.SubPath)
	}
}
