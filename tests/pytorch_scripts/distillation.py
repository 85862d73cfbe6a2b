"""Knowledge distillation (the PyTorch tutorial "Knowledge Distillation", scaled down): a
teacher CNN trained with cross entropy, then put in eval() and run under torch.no_grad(); a
smaller student whose first conv block is copied from a pretrained feature extractor and
frozen with requires_grad_(False), trained on T^2 * KLDivLoss(reduction="batchmean") between
log_softmax(student / T) and softmax(teacher / T) plus cross entropy, by SGD over
``filter(lambda p: p.requires_grad, ...)``."""
from . import digit_images, load_numpy_state, numpy_state


def define(torch):
    nn = torch.nn

    class DeepNN(nn.Module):
        def __init__(self, num_classes=10):
            super(DeepNN, self).__init__()
            self.features = nn.Sequential(
                nn.Conv2d(1, 16, kernel_size=3, padding=1),
                nn.ReLU(),
                nn.Conv2d(16, 16, kernel_size=3, padding=1),
                nn.ReLU(),
                nn.MaxPool2d(kernel_size=2, stride=2),
                nn.Conv2d(16, 8, kernel_size=3, padding=1),
                nn.ReLU(),
                nn.MaxPool2d(kernel_size=2, stride=2),
            )
            self.classifier = nn.Sequential(
                nn.Linear(8 * 4 * 4, 64),
                nn.ReLU(),
                nn.Linear(64, num_classes)
            )

        def forward(self, x):
            x = self.features(x)
            x = torch.flatten(x, 1)
            x = self.classifier(x)
            return x

    class LightNN(nn.Module):
        def __init__(self, num_classes=10):
            super(LightNN, self).__init__()
            self.features = nn.Sequential(
                nn.Conv2d(1, 16, kernel_size=3, padding=1),
                nn.ReLU(),
                nn.MaxPool2d(kernel_size=2, stride=2),
                nn.Conv2d(16, 8, kernel_size=3, padding=1),
                nn.ReLU(),
                nn.MaxPool2d(kernel_size=2, stride=2),
            )
            self.classifier = nn.Sequential(
                nn.Linear(8 * 4 * 4, 32),
                nn.ReLU(),
                nn.Linear(32, num_classes)
            )

        def forward(self, x):
            x = self.features(x)
            x = torch.flatten(x, 1)
            x = self.classifier(x)
            return x

    return DeepNN, LightNN


def train(torch, model, train_loader, epochs, learning_rate, device, log):
    criterion = torch.nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=learning_rate)
    model.train()
    for epoch in range(epochs):
        for inputs, labels in train_loader:
            inputs, labels = inputs.to(device), labels.to(device)
            optimizer.zero_grad()
            outputs = model(inputs)
            loss = criterion(outputs, labels)
            loss.backward()
            optimizer.step()
            log.append(loss.item())


def train_knowledge_distillation(torch, teacher, student, train_loader, epochs, learning_rate,
                                 T, soft_target_loss_weight, ce_loss_weight, device, log):
    F = torch.nn.functional
    ce_loss = torch.nn.CrossEntropyLoss()
    kl_loss = torch.nn.KLDivLoss(reduction="batchmean")
    optimizer = torch.optim.SGD(filter(lambda p: p.requires_grad, student.parameters()),
                                lr=learning_rate, momentum=0.9)
    teacher.eval()  # Teacher set to evaluation mode
    student.train()  # Student to train mode
    for epoch in range(epochs):
        for inputs, labels in train_loader:
            inputs, labels = inputs.to(device), labels.to(device)
            optimizer.zero_grad()
            # Forward pass with the teacher model - do not save gradients here as we do not
            # change the teacher's weights
            with torch.no_grad():
                teacher_logits = teacher(inputs)
            student_logits = student(inputs)
            soft_targets = F.softmax(teacher_logits / T, dim=-1)
            soft_prob = F.log_softmax(student_logits / T, dim=-1)
            # scaled by T**2 as suggested by "Distilling the knowledge in a neural network"
            soft_targets_loss = kl_loss(soft_prob, soft_targets) * (T ** 2)
            label_loss = ce_loss(student_logits, labels)
            loss = soft_target_loss_weight * soft_targets_loss + ce_loss_weight * label_loss
            loss.backward()
            optimizer.step()
            log.append((soft_targets_loss.item(), label_loss.item()))


def test(torch, model, test_loader, device):
    model.eval()
    correct, total = 0, 0
    with torch.no_grad():
        for inputs, labels in test_loader:
            inputs, labels = inputs.to(device), labels.to(device)
            outputs = model(inputs)
            _, predicted = torch.max(outputs.data, 1)
            total += labels.size(0)
            correct += (predicted == labels).sum().item()
    return correct, total


def main(torch, epochs=3, state=None, device="cpu", T=2.0):
    torch.manual_seed(42)
    device = torch.device(device)
    images, labels = digit_images(256, seed=11)
    x, y = torch.from_numpy((images - 0.5) / 0.25), torch.from_numpy(labels)
    data = torch.utils.data
    train_loader = data.DataLoader(data.TensorDataset(x[:192], y[:192]), batch_size=32)
    test_loader = data.DataLoader(data.TensorDataset(x[192:], y[192:]), batch_size=64)

    DeepNN, LightNN = define(torch)
    teacher = DeepNN(num_classes=10).to(device)
    student = LightNN(num_classes=10).to(device)
    initial = {"teacher": numpy_state(teacher), "student": numpy_state(student)}
    if state is not None:
        load_numpy_state(torch, teacher, state["teacher"])
        load_numpy_state(torch, student, state["student"])

    teacher_losses = []
    train(torch, teacher, train_loader, epochs, 1e-3, device, teacher_losses)
    teacher_test = test(torch, teacher, test_loader, device)

    # the student starts from the teacher's first conv (a "pretrained" feature extractor),
    # kept frozen
    student.features[0].load_state_dict(teacher.features[0].state_dict())
    student.features[0].requires_grad_(False)
    trainable = sum(p.numel() for p in student.parameters() if p.requires_grad)

    kd_losses = []
    train_knowledge_distillation(torch, teacher, student, train_loader, epochs, 0.02, T,
                                 soft_target_loss_weight=0.25, ce_loss_weight=0.75,
                                 device=device, log=kd_losses)
    frozen_unchanged = bool(torch.equal(student.features[0].weight,
                                        teacher.features[0].weight))
    return {"teacher_losses": teacher_losses, "teacher_test": teacher_test,
            "kd_losses": kd_losses, "ce_losses": [ce for _, ce in kd_losses],
            "student_test": test(torch, student, test_loader, device),
            "trainable": trainable, "frozen_unchanged": frozen_unchanged, "state": initial}
