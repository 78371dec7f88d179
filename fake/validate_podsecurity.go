package fake

import (
	"encoding/json"
	"fmt"
	"path"
	"reflect"
	"regexp"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/component-helpers/node/util/sysctl"
)

// The apiserver's validation of pod and container security contexts (validatePodSpecSecurityContext,
// ValidateSecurityContext): user and group ids, sysctls, the fsGroup, supplemental groups and
// SELinux change policies, seccomp and AppArmor profiles, procMount and privilege escalation, as
// recorded in reference/observed-validation-podspec.md. Not reproduced: the cluster policy that
// refuses privileged containers (kube-apiserver's --allow-privileged, off on the oracle, on in
// envtest and in clusters that run privileged pods, so the fake allows them), Windows options.

// sysctlName is the apiserver's sysctl name rule (SysctlContainSlashFmt): dot- or
// slash-separated segments.
var sysctlName = regexp.MustCompile(`^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$`)

// sysctlMaxLength is the apiserver's SysctlMaxLength.
const sysctlMaxLength = 253

// validatePodSecurityContext is the apiserver's validatePodSpecSecurityContext.
func validatePodSecurityContext(spec *corev1.PodSpec, fldPath *field.Path) field.ErrorList {
	sc := spec.SecurityContext
	if sc == nil {
		return nil
	}
	var errs field.ErrorList
	if sc.FSGroup != nil {
		errs = append(errs, validateID(*sc.FSGroup, validation.IsValidGroupID, fldPath.Child("fsGroup"))...)
	}
	errs = append(errs, validateRunAs(sc.RunAsUser, sc.RunAsGroup, fldPath)...)
	for i, gid := range sc.SupplementalGroups {
		errs = append(errs, validateID(gid, validation.IsValidGroupID, fldPath.Child("supplementalGroups").Index(i))...)
	}
	errs = append(errs, validateSysctls(sc.Sysctls, spec, fldPath.Child("sysctls"))...)
	if p := sc.FSGroupChangePolicy; p != nil {
		errs = append(errs, validateOptionalEnum(*p, fldPath.Child("fsGroupChangePolicy"),
			[]corev1.PodFSGroupChangePolicy{corev1.FSGroupChangeAlways, corev1.FSGroupChangeOnRootMismatch})...)
	}
	errs = append(errs, validateSeccompProfile(sc.SeccompProfile, fldPath.Child("seccompProfile"))...)
	errs = append(errs, validateWindowsOptions(sc.WindowsOptions, fldPath.Child("windowsOptions"))...)
	errs = append(errs, validateAppArmorProfile(sc.AppArmorProfile, fldPath.Child("appArmorProfile"))...)
	if p := sc.SupplementalGroupsPolicy; p != nil {
		errs = append(errs, validateOptionalEnum(*p, fldPath.Child("supplementalGroupsPolicy"),
			[]corev1.SupplementalGroupsPolicy{corev1.SupplementalGroupsPolicyMerge, corev1.SupplementalGroupsPolicyStrict})...)
	}
	if p := sc.SELinuxChangePolicy; p != nil {
		errs = append(errs, validateOptionalEnum(*p, fldPath.Child("seLinuxChangePolicy"),
			[]corev1.PodSELinuxChangePolicy{corev1.SELinuxChangePolicyMountOption, corev1.SELinuxChangePolicyRecursive})...)
	}
	return errs
}

// validateOptionalEnum is a set field of one of the values given (sorted, as the apiserver lists
// them); an empty value is unsupported too.
func validateOptionalEnum[T ~string](v T, fldPath *field.Path, valid []T) field.ErrorList {
	if slices.Contains(valid, v) {
		return nil
	}
	return field.ErrorList{field.NotSupported(fldPath, v, valid)}
}

// validateID is a user or group id within the range the check given allows.
func validateID(id int64, check func(int64) []string, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range check(id) {
		errs = append(errs, field.Invalid(fldPath, id, msg))
	}
	return errs
}

// validateRunAs is a pod's or a container's runAsUser and runAsGroup, when set.
func validateRunAs(user, group *int64, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if user != nil {
		errs = append(errs, validateID(*user, validation.IsValidUserID, fldPath.Child("runAsUser"))...)
	}
	if group != nil {
		errs = append(errs, validateID(*group, validation.IsValidGroupID, fldPath.Child("runAsGroup"))...)
	}
	return errs
}

// validateSysctls is the apiserver's validateSysctls: names required, well formed and unique, and
// none of the network or IPC namespace when the pod shares the host's.
func validateSysctls(sysctls []corev1.Sysctl, spec *corev1.PodSpec, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	names := map[string]bool{}
	for i, s := range sysctls {
		namePath := fldPath.Index(i).Child("name")
		switch {
		case s.Name == "":
			errs = append(errs, field.Required(namePath, ""))
		case len(s.Name) > sysctlMaxLength || !sysctlName.MatchString(s.Name):
			errs = append(errs, field.Invalid(namePath, s.Name, fmt.Sprintf("must have at most %d characters and match regex %s", sysctlMaxLength, sysctlName)))
		case names[s.Name]:
			errs = append(errs, field.Duplicate(namePath, s.Name))
		}
		ns, _, _ := sysctl.GetNamespace(s.Name)
		switch {
		case spec.HostNetwork && ns == sysctl.NetNamespace:
			errs = append(errs, field.Invalid(namePath, s.Name, "may not be specified when 'hostNetwork' is true"))
		case spec.HostIPC && ns == sysctl.IPCNamespace:
			errs = append(errs, field.Invalid(namePath, s.Name, "may not be specified when 'hostIPC' is true"))
		}
		names[s.Name] = true
	}
	return errs
}

// validateSeccompProfile is the apiserver's validateSeccompProfileField: a type, and a relative
// local profile path exactly with the Localhost type.
func validateSeccompProfile(sp *corev1.SeccompProfile, fldPath *field.Path) field.ErrorList {
	if sp == nil {
		return nil
	}
	var errs field.ErrorList
	valid := []corev1.SeccompProfileType{corev1.SeccompProfileTypeLocalhost, corev1.SeccompProfileTypeRuntimeDefault, corev1.SeccompProfileTypeUnconfined}
	switch {
	case sp.Type == "":
		errs = append(errs, field.Required(fldPath.Child("type"), "type is required when seccompProfile is set"))
	case !slices.Contains(valid, sp.Type):
		errs = append(errs, field.NotSupported(fldPath.Child("type"), sp.Type, valid))
	}
	switch {
	case sp.Type == corev1.SeccompProfileTypeLocalhost && sp.LocalhostProfile == nil:
		errs = append(errs, field.Required(fldPath.Child("localhostProfile"), "must be set when seccomp type is Localhost"))
	case sp.Type == corev1.SeccompProfileTypeLocalhost:
		errs = append(errs, validateLocalDescendingPath(*sp.LocalhostProfile, fldPath.Child("localhostProfile"))...)
	case sp.LocalhostProfile != nil:
		errs = append(errs, field.Invalid(fldPath.Child("localhostProfile"), goNames{sp}, "can only be set when seccomp type is Localhost"))
	}
	return errs
}

// validateLocalDescendingPath is the apiserver's validateLocalDescendingPath: relative, without
// "..".
func validateLocalDescendingPath(p string, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if path.IsAbs(p) {
		errs = append(errs, field.Invalid(fldPath, p, "must be a relative path"))
	}
	return append(errs, validateNoBacksteps(p, fldPath)...)
}

// validateNoBacksteps is the apiserver's validatePathNoBacksteps.
func validateNoBacksteps(p string, fldPath *field.Path) field.ErrorList {
	if slices.Contains(strings.Split(p, "/"), "..") {
		return field.ErrorList{field.Invalid(fldPath, p, "must not contain '..'")}
	}
	return nil
}

// validateAppArmorProfile is the apiserver's ValidateAppArmorProfileField.
func validateAppArmorProfile(p *corev1.AppArmorProfile, fldPath *field.Path) field.ErrorList {
	if p == nil {
		return nil
	}
	var errs field.ErrorList
	localPath := fldPath.Child("localhostProfile")
	switch p.Type {
	case corev1.AppArmorProfileTypeLocalhost:
		const required = "must be set when AppArmor type is Localhost"
		if p.LocalhostProfile == nil {
			return field.ErrorList{field.Required(localPath, required)}
		}
		trimmed := strings.TrimSpace(*p.LocalhostProfile)
		switch {
		case trimmed != *p.LocalhostProfile:
			errs = append(errs, field.Invalid(localPath, *p.LocalhostProfile, "must not be padded with whitespace"))
		case trimmed == "":
			errs = append(errs, field.Required(localPath, required))
		}
		// PATH_MAX - 1.
		const maxLength = 4095
		if len(*p.LocalhostProfile) > maxLength {
			errs = append(errs, field.TooLong(localPath, "", maxLength))
		}
	case corev1.AppArmorProfileTypeRuntimeDefault, corev1.AppArmorProfileTypeUnconfined:
		if p.LocalhostProfile != nil {
			errs = append(errs, field.Invalid(localPath, *p.LocalhostProfile, "can only be set when AppArmor type is Localhost"))
		}
	case "":
		errs = append(errs, field.Required(fldPath.Child("type"), "type is required when appArmorProfile is set"))
	default:
		errs = append(errs, field.NotSupported(fldPath.Child("type"), p.Type,
			[]corev1.AppArmorProfileType{corev1.AppArmorProfileTypeLocalhost, corev1.AppArmorProfileTypeRuntimeDefault, corev1.AppArmorProfileTypeUnconfined}))
	}
	return errs
}

// validateSecurityContext is the apiserver's ValidateSecurityContext of a container in a pod that
// uses the host's user namespace (hostUsers unset or true).
func validateSecurityContext(sc *corev1.SecurityContext, hostUsers bool, fldPath *field.Path) field.ErrorList {
	if sc == nil {
		return nil
	}
	errs := validateRunAs(sc.RunAsUser, sc.RunAsGroup, fldPath)
	if pm := sc.ProcMount; pm != nil {
		valid := []corev1.ProcMountType{corev1.DefaultProcMount, corev1.UnmaskedProcMount}
		if !slices.Contains(valid, *pm) {
			errs = append(errs, field.NotSupported(fldPath.Child("procMount"), *pm, valid))
		}
		if hostUsers && *pm == corev1.UnmaskedProcMount {
			errs = append(errs, field.Invalid(fldPath.Child("procMount"), *pm, "`hostUsers` must be false to use `Unmasked`"))
		}
	}
	errs = append(errs, validateSeccompProfile(sc.SeccompProfile, fldPath.Child("seccompProfile"))...)
	if sc.AllowPrivilegeEscalation != nil && !*sc.AllowPrivilegeEscalation {
		if sc.Privileged != nil && *sc.Privileged {
			errs = append(errs, field.Invalid(fldPath, goNames{sc}, "cannot set `allowPrivilegeEscalation` to false and `privileged` to true"))
		}
		if sc.Capabilities != nil {
			for _, c := range sc.Capabilities.Add {
				if c == "CAP_SYS_ADMIN" {
					errs = append(errs, field.Invalid(fldPath, goNames{sc}, "cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN"))
				}
			}
		}
	}
	errs = append(errs, validateWindowsOptions(sc.WindowsOptions, fldPath.Child("windowsOptions"))...)
	errs = append(errs, validateAppArmorProfile(sc.AppArmorProfile, fldPath.Child("appArmorProfile"))...)
	return errs
}

// The apiserver's limits and patterns of windowsOptions (validateWindowsSecurityContextOptions).
const (
	maxGMSACredentialSpecKiB     = 64
	maxRunAsUserNameDomainLength = 256
	maxRunAsUserNameUserLength   = 104
)

var (
	controlChars          = regexp.MustCompile(`[[:cntrl:]]+`)
	netBIOSDomain         = regexp.MustCompile(`^[^\\/:\*\?"<>|\.][^\\/:\*\?"<>|]{0,14}$`)
	dnsUserDomain         = regexp.MustCompile(`^[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$`)
	userNameForbidden     = regexp.MustCompile(`["/\\:;|=,\+\*\?<>@\[\]]`)
	userNameDotsAndSpaces = regexp.MustCompile(`^[\. ]+$`)
)

// validateWindowsOptions is the apiserver's validateWindowsSecurityContextOptions: a GMSA
// credential spec name that is a DNS subdomain, a credential spec neither empty nor over 64 KiB,
// and a runAsUserName of a user (at most 104 characters, not only dots and spaces, none of
// "/\:;|=,+*?<>@[]) and maybe one domain (NetBIOS or DNS, under 256 characters) before one
// backslash, without control characters.
func validateWindowsOptions(o *corev1.WindowsSecurityContextOptions, fldPath *field.Path) field.ErrorList {
	if o == nil {
		return nil
	}
	var errs field.ErrorList
	if n := o.GMSACredentialSpecName; n != nil {
		for _, msg := range validation.IsDNS1123Subdomain(*n) {
			errs = append(errs, field.Invalid(fldPath.Child("gmsaCredentialSpecName"), n, msg))
		}
	}
	if s := o.GMSACredentialSpec; s != nil {
		switch {
		case *s == "":
			errs = append(errs, field.Invalid(fldPath.Child("gmsaCredentialSpec"), s, "gmsaCredentialSpec cannot be an empty string"))
		case len(*s) > maxGMSACredentialSpecKiB*1024:
			errs = append(errs, field.Invalid(fldPath.Child("gmsaCredentialSpec"), s, fmt.Sprintf("gmsaCredentialSpec size must be under %d KiB", maxGMSACredentialSpecKiB)))
		}
	}
	u := o.RunAsUserName
	if u == nil {
		return errs
	}
	path := fldPath.Child("runAsUserName")
	// The values are the pointers, as the apiserver gives them: a pointer's value prints as JSON
	// ("\u0001"), a string's quoted as Go quotes it ("\x01").
	invalid := func(msg string) { errs = append(errs, field.Invalid(path, u, msg)) }
	parts := strings.Split(*u, "\\")
	switch {
	case *u == "":
		invalid("runAsUserName cannot be an empty string")
	case controlChars.MatchString(*u):
		invalid("runAsUserName cannot contain control characters")
	case len(parts) > 2:
		invalid("runAsUserName cannot contain more than one backslash")
	default:
		domain, user := "", parts[0]
		if len(parts) == 2 {
			domain, user = parts[0], parts[1]
		}
		if len(domain) >= maxRunAsUserNameDomainLength {
			invalid(fmt.Sprintf("runAsUserName's Domain length must be under %d characters", maxRunAsUserNameDomainLength))
		}
		if len(parts) == 2 && !netBIOSDomain.MatchString(domain) && !dnsUserDomain.MatchString(domain) {
			invalid("runAsUserName's Domain doesn't match the NetBios nor the DNS format")
		}
		switch {
		case user == "":
			invalid("runAsUserName's User cannot be empty")
		case len(user) > maxRunAsUserNameUserLength:
			invalid(fmt.Sprintf("runAsUserName's User length must not be longer than %d characters", maxRunAsUserNameUserLength))
		}
		if userNameDotsAndSpaces.MatchString(user) {
			invalid("runAsUserName's User cannot contain only periods or spaces")
		}
		if userNameForbidden.MatchString(user) {
			invalid(`runAsUserName's User cannot contain the following characters: "/\:;|=,+*?<>@[]`)
		}
	}
	return errs
}

// goNames prints a value in a cause's message as the apiserver prints its internal types: JSON
// with the Go field names, every field present, nil as null (the internal types have no json
// tags). For the v1 types it wraps, whose Go fields are the internal types' in the same order, the
// output is the apiserver's.
type goNames struct{ v any }

// MarshalJSON is what field.Error's message uses to print the value.
func (g goNames) MarshalJSON() ([]byte, error) {
	return appendGoNames(nil, reflect.ValueOf(g.v))
}

// marshalerType is json.Marshaler, whose implementations (quantities, times) print as they do in
// the internal types.
var marshalerType = reflect.TypeFor[json.Marshaler]()

// appendGoNames appends v in goNames' form.
func appendGoNames(b []byte, v reflect.Value) ([]byte, error) {
	if !v.IsValid() {
		return append(b, "null"...), nil
	}
	if v.Type().Implements(marshalerType) && v.Kind() != reflect.Pointer && v.Kind() != reflect.Interface {
		j, err := json.Marshal(v.Interface())
		return append(b, j...), err
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return append(b, "null"...), nil
		}
		return appendGoNames(b, v.Elem())
	case reflect.Struct:
		b = append(b, '{')
		n := 0
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if !f.IsExported() {
				continue
			}
			if n > 0 {
				b = append(b, ',')
			}
			n++
			b = append(b, '"')
			b = append(b, f.Name...)
			b = append(b, '"', ':')
			var err error
			if b, err = appendGoNames(b, v.Field(i)); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	case reflect.Slice:
		if v.IsNil() {
			return append(b, "null"...), nil
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			break
		}
		b = append(b, '[')
		for i := range v.Len() {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendGoNames(b, v.Index(i)); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case reflect.Map:
		if v.IsNil() {
			return append(b, "null"...), nil
		}
		keys := v.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			kj, err := json.Marshal(fmt.Sprint(k))
			if err != nil {
				return nil, err
			}
			b = append(append(b, kj...), ':')
			if b, err = appendGoNames(b, v.MapIndex(k)); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	}
	j, err := json.Marshal(v.Interface())
	return append(b, j...), err
}
