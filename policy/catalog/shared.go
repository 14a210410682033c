package catalog

import "slices"

// sharedPrefixes are the service prefixes AWS's service authorization
// reference gives to two services, which the data set holds as one service
// with one entry per action name, keeping the first service's resource types
// for an action both have. Elastic Load Balancing's classic API and its
// version 2 API are both "elasticloadbalancing": AddTags, RemoveTags,
// CreateLoadBalancer and the other actions of both list only the classic
// load balancer, though version 2 acts on its own load balancers, target
// groups, listeners and rules (Service Authorization Reference, "Actions,
// resources, and condition keys for Elastic Load Balancing V2"). The value is
// the resource type the data set keeps for such an action.
var sharedPrefixes = map[string]string{"elasticloadbalancing": "loadbalancer"}

// widenShared gives each action of a shared prefix that names the kept
// type every resource type of the prefix as an optional one: the data set
// does not say which of the other service's types the action takes, and a
// catalog that refused a real ARN would have leash refuse real policies.
func (c *Catalog) widenShared() {
	for i := range c.services {
		s := &c.services[i]
		kept, ok := sharedPrefixes[s.info.Prefix]
		if !ok {
			continue
		}
		for j := range s.actions {
			a := &s.actions[j]
			if !namesType(a.Resources, kept) {
				continue
			}
			// The refs of all actions share one array: clip before growing.
			a.Resources = a.Resources[:len(a.Resources):len(a.Resources)]
			for _, rt := range s.rtypes {
				if !namesType(a.Resources, rt.Name) {
					a.Resources = append(a.Resources, ResourceRef{Type: rt.Name})
				}
			}
			a.Resources = slices.Clip(a.Resources)
		}
	}
}

func namesType(refs []ResourceRef, name string) bool {
	for _, r := range refs {
		if r.Type == name {
			return true
		}
	}
	return false
}
