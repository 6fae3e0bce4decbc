package install_test

import (
	"bufio"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

func bufioReader(s string) *bufio.Reader { return bufio.NewReader(strings.NewReader(s)) }

func metaSelector(h admissionregistrationv1.ValidatingWebhook) (labels.Selector, error) {
	return metav1.LabelSelectorAsSelector(h.NamespaceSelector)
}
